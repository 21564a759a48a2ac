// The rows of a write's events: what each event's data is made of, read for every fact of a
// write in one statement (the job, the proposal, settlement and review it names, the agent it
// concerns), and the notifications those events give. kernel/write.ts writes them.
import type { Address } from "viem";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { EventData } from "@/lib/shared/view-types";
import { isNotificationType } from "./notice-recipients";
import { checksumStoredAddress } from "./serialize";
import type { Notice } from "./notices";
import type { EventFact } from "./write";

type Tx = Prisma.TransactionClient;

/** What a fact row says beside its job. */
export type RelatedFacts = Omit<FactRow, "i" | "status" | "category" | "posterAddress">;
export type KnownFacts = Pick<FactRow, "status" | "category" | "posterAddress"> &
  Partial<RelatedFacts>;

/** A fact row with nothing but its job: no proposal, settlement, review or agent. */
export const NOTHING_ELSE: RelatedFacts = {
  proposalId: null,
  proposalStatus: null,
  settlementId: null,
  settlementStatus: null,
  txHash: null,
  reviewId: null,
  agentId: null,
  walletAddress: null,
  operatorAddress: null,
};

/** The notification an event gives, if its type notifies anyone. */
export function noticeOf(event: { id: bigint; type: string; data: Prisma.JsonValue }): Notice[] {
  if (!isNotificationType(event.type)) return [];
  const data = event.data as unknown as EventData;
  return [
    {
      type: event.type,
      jobId: data.jobId,
      sides: {
        posterAddress: data.posterAddress,
        agentWallets: [data.agentWalletAddress, data.agentOperatorAddress].filter(
          (wallet): wallet is Address => wallet !== undefined,
        ),
      },
      proposalId: data.proposalId,
      reviewId: data.reviewId,
      eventId: event.id,
    },
  ];
}

/** What an event's data is made of, read for every fact of a write in one statement. */
export interface FactRow {
  /** The fact's index in the write's list. */
  i: number;
  status: string;
  category: string;
  posterAddress: string;
  proposalId: string | null;
  proposalStatus: string | null;
  settlementId: string | null;
  settlementStatus: string | null;
  txHash: string | null;
  reviewId: string | null;
  agentId: string | null;
  walletAddress: string | null;
  operatorAddress: string | null;
}

/**
 * The job of each fact; the proposal it names (a job transition after acceptance: the
 * accepted one); its settlement and review; and the agent it concerns: the review's, else the
 * proposal's, else the job's assigned agent. Each row named must exist (the job's accepted
 * proposal has no foreign key).
 */
export async function readFacts(tx: Tx, facts: readonly EventFact[]): Promise<FactRow[]> {
  const named = facts.map((fact, i) => ({
    i,
    type: fact.type,
    jobId: fact.jobId,
    proposalId: fact.proposalId ?? null,
    settlementId: fact.settlementId ?? null,
    reviewId: fact.reviewId ?? null,
  }));
  const rows = await tx.$queryRawUnsafe<(FactRow & { namedProposalId: string | null })[]>(
    `SELECT f."i", j."status"::text AS "status", j."category"::text AS "category",
       j."posterAddress", x."proposalId" AS "namedProposalId",
       p."id" AS "proposalId", p."status"::text AS "proposalStatus",
       s."id" AS "settlementId", s."status"::text AS "settlementStatus", s."txHash",
       r."id" AS "reviewId", a."id" AS "agentId", a."walletAddress", a."operatorAddress"
     FROM jsonb_to_recordset($1::jsonb) AS f(
       "i" int, "type" text, "jobId" text, "proposalId" text, "settlementId" text,
       "reviewId" text
     )
     JOIN "jobs" j ON j."id" = f."jobId"
     CROSS JOIN LATERAL (SELECT COALESCE(f."proposalId",
       CASE WHEN f."type" LIKE 'job.%' THEN j."acceptedProposalId" END) AS "proposalId") x
     LEFT JOIN "proposals" p ON p."id" = x."proposalId"
     LEFT JOIN "settlements" s ON s."id" = f."settlementId"
     LEFT JOIN "reviews" r ON r."id" = f."reviewId"
     LEFT JOIN "agents" a ON a."id" = COALESCE(r."agentId", p."agentId", j."assignedAgentId")
     ORDER BY f."i"`,
    JSON.stringify(named),
  );
  facts.forEach((fact, index) => {
    const row = rows[index];
    const missing =
      !row || row.i !== index
        ? `job ${fact.jobId}`
        : row.namedProposalId && !row.proposalId
          ? `proposal ${row.namedProposalId}`
          : fact.settlementId && !row.settlementId
            ? `settlement ${fact.settlementId}`
            : fact.reviewId && !row.reviewId
              ? `review ${fact.reviewId}`
              : undefined;
    if (missing) throw new Error(`event ${fact.type}: ${missing} not found`);
  });
  return rows;
}

/** Each event's row: ids and statuses, the addresses checksummed, its actors for the feed. */
export function eventRows(facts: readonly EventFact[], rows: readonly FactRow[]) {
  return facts.map((fact, index) => {
    const row = rows[index]!;
    const data: EventData = {
      jobId: fact.jobId,
      jobStatus: row.status as EventData["jobStatus"],
      category: row.category as EventData["category"],
      posterAddress: checksumStoredAddress(row.posterAddress),
    };
    if (row.proposalId) {
      data.proposalId = row.proposalId;
      data.proposalStatus = row.proposalStatus as EventData["proposalStatus"];
    }
    if (row.settlementId) {
      data.settlementId = row.settlementId;
      data.settlementStatus = row.settlementStatus as EventData["settlementStatus"];
      data.txHash = row.txHash;
    }
    if (row.reviewId) data.reviewId = row.reviewId;
    const actors = new Set<string>([data.posterAddress]);
    if (row.agentId && row.walletAddress && row.operatorAddress) {
      data.agentId = row.agentId;
      data.agentWalletAddress = checksumStoredAddress(row.walletAddress);
      data.agentOperatorAddress = checksumStoredAddress(row.operatorAddress);
      actors.add(data.agentWalletAddress).add(data.agentOperatorAddress);
    }
    return {
      i: index,
      type: fact.type,
      jobId: fact.jobId,
      category: row.category,
      actors: [...actors],
      data,
    };
  });
}
