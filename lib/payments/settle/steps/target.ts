// What every step of the pipeline works on: the job, the proposal paid, its agent's operator
// and the network, read in one statement together with what the ledger holds for the job and
// for the payment's authorization (issue 27: a payment's reads were nine round-trips).
import "server-only";
import type { Db } from "@/lib/db";
import { type Job, Prisma, type Proposal } from "@/lib/generated/prisma/client";
import { isPossibleId } from "@/lib/kernel/ids";
import { notFound } from "@/lib/platform/errors";
import { getSettlementNetwork, type SettlementNetwork } from "../../chain/network";

export interface SettleTarget {
  job: Pick<Job, "id" | "title" | "status" | "posterAddress">;
  proposal: Pick<
    Proposal,
    "id" | "jobId" | "agentId" | "status" | "bidAtomic" | "etaDays" | "payeeAddress"
  >;
  /** The bidding agent's operator: a bid that pays the operator's own wallet needs no consent. */
  agent: { id: string; operatorAddress: string };
  network: SettlementNetwork;
  /** The ledger as this statement saw it; each step that uses it says so. */
  seen: LedgerSnapshot;
}

/**
 * The ids of the job's live settlement and of the authorization's row when the target was
 * read. A hint, read once: a step that must know the ledger as it is now (a lost claim's
 * resolution) reads it again.
 */
export interface LedgerSnapshot {
  liveSettlementId: string | null;
  /** Present when an authorization was given: its row's id, or null when it has none. */
  authorization?: { payer: string; nonce: string; settlementId: string | null };
}

/** The authorization a PAYMENT-SIGNATURE names, the key of its ledger row. */
export interface AuthorizationKey {
  payer: string;
  nonce: string;
}

interface TargetRow {
  jobId: string;
  title: string;
  jobStatus: Job["status"];
  posterAddress: string;
  proposalId: string | null;
  proposalStatus: Proposal["status"] | null;
  agentId: string | null;
  bidAtomic: bigint | null;
  etaDays: number | null;
  payeeAddress: string | null;
  operatorAddress: string | null;
  liveSettlementId: string | null;
  authorizationSettlementId: string | null;
}

/** 404 for an unknown job, or a proposal not of this job. */
export async function loadTarget(
  db: Db,
  ids: { jobId: string; proposalId: string },
  authorization?: AuthorizationKey,
): Promise<SettleTarget> {
  const network = getSettlementNetwork();
  const jobMissing = () => notFound("job_not_found", `job ${ids.jobId} not found`);
  if (!isPossibleId(ids.jobId)) throw jobMissing();
  // A proposal id no row can have is looked up as one that matches nothing.
  const proposalId = isPossibleId(ids.proposalId) ? ids.proposalId : "";
  // The ledger's unique key of an authorization (settlements.ts findSettlementByAuthorization).
  const nonce = authorization?.nonce.toLowerCase() ?? "";
  const authorizationRow = authorization
    ? Prisma.sql`(SELECT s."id" FROM "settlements" s
        WHERE s."network" = ${network.network} AND s."asset" = ${network.asset}
          AND s."payer" = ${authorization.payer} AND s."authorizationNonce" = ${nonce})`
    : Prisma.sql`NULL`;
  const rows = await db.$queryRaw<TargetRow[]>`
    SELECT j."id" AS "jobId", j."title", j."status"::text AS "jobStatus", j."posterAddress",
      p."id" AS "proposalId", p."status"::text AS "proposalStatus", p."agentId", p."bidAtomic",
      p."etaDays", p."payeeAddress", a."operatorAddress",
      (SELECT s."id" FROM "settlements" s
        WHERE s."jobId" = j."id" AND s."status" IN ('pending', 'succeeded') LIMIT 1)
        AS "liveSettlementId",
      ${authorizationRow} AS "authorizationSettlementId"
    FROM "jobs" j
    LEFT JOIN "proposals" p ON p."id" = ${proposalId} AND p."jobId" = j."id"
    LEFT JOIN "agents" a ON a."id" = p."agentId"
    WHERE j."id" = ${ids.jobId}`;
  const row = rows[0];
  if (!row) throw jobMissing();
  if (row.proposalId === null || row.agentId === null || row.operatorAddress === null) {
    // A proposal of another job is as unknown here as a missing one.
    throw notFound(
      "proposal_not_found",
      `proposal ${ids.proposalId} not found on job ${ids.jobId}`,
    );
  }
  return {
    job: {
      id: row.jobId,
      title: row.title,
      status: row.jobStatus,
      posterAddress: row.posterAddress,
    },
    proposal: {
      id: row.proposalId,
      jobId: row.jobId,
      agentId: row.agentId,
      status: row.proposalStatus!,
      bidAtomic: row.bidAtomic!,
      etaDays: row.etaDays!,
      payeeAddress: row.payeeAddress!,
    },
    agent: { id: row.agentId, operatorAddress: row.operatorAddress },
    network,
    seen: {
      liveSettlementId: row.liveSettlementId,
      authorization: authorization && {
        payer: authorization.payer,
        nonce,
        settlementId: row.authorizationSettlementId,
      },
    },
  };
}
