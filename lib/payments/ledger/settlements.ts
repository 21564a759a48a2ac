import type { Address, Hex } from "viem";
import type { Db } from "@/lib/db";
import { WRITE_TRANSACTION } from "@/lib/db/transaction-budget";
import { DomainError, isUniqueViolation } from "@/lib/platform/errors";
import type { Prisma, Settlement } from "@/lib/generated/prisma/client";
import { newId } from "@/lib/kernel/ids";
import { announce, OPERATIONS } from "@/lib/kernel/lifecycle";
import { runWrite } from "@/lib/kernel/write";
import { createHold } from "../escrow/holds";

/**
 * The settlement ledger: the one record of money that moved for a job. At most one
 * pending-or-succeeded row per job is enforced by the database (settlements_one_live_per_job);
 * one row per authorization by its unique (network, asset, payer, authorizationNonce).
 * A row leaves `pending` only through the conditional updates below.
 */

type Reader = Db | Prisma.TransactionClient;

export interface SettlementClaim {
  jobId: string;
  proposalId: string;
  payer: Address;
  payTo: Address;
  amountAtomic: bigint;
  network: string;
  asset: Address;
  authorizationNonce: Hex;
  validBefore: bigint;
  claimBlock: bigint;
  payload: Prisma.InputJsonValue;
  /** Until then the claiming request may still be settling it (no resubmission). */
  inFlightUntil: Date;
  /** `auth_capture` for a protected payment, with its terms (lib/payments/escrow). */
  scheme?: "exact" | "auth_capture";
  escrowTerms?: Prisma.InputJsonValue;
}

export const LIVE_STATUSES = ["pending", "succeeded"] as const;

/** The succeeded settlement for exactly this job, proposal and hash, if any. */
export async function findSucceededSettlement(
  db: Reader,
  where: { jobId: string; proposalId: string; txHash: string },
): Promise<Settlement | null> {
  return db.settlement.findFirst({
    where: {
      jobId: where.jobId,
      // mutant: accept-the-settlement-of-this-proposal
      proposalId: where.proposalId,
      // mutant end
      txHash: where.txHash.toLowerCase(),
      status: "succeeded",
    },
  });
}

export async function liveSettlementForJob(db: Reader, jobId: string): Promise<Settlement | null> {
  return db.settlement.findFirst({ where: { jobId, status: { in: [...LIVE_STATUSES] } } });
}

/** The job's live settlement, else its most recent failed one, else null. */
export async function latestSettlementForJob(db: Reader, jobId: string) {
  return (
    (await liveSettlementForJob(db, jobId)) ??
    db.settlement.findFirst({ where: { jobId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] })
  );
}

export async function liveSettlementForProposal(
  db: Reader,
  proposalId: string,
): Promise<Settlement | null> {
  return db.settlement.findFirst({ where: { proposalId, status: { in: [...LIVE_STATUSES] } } });
}

/** The row of one authorization (the payer's EIP-3009 nonce is unique per token). */
export async function findSettlementByAuthorization(
  db: Reader,
  key: { network: string; asset: string; payer: string; authorizationNonce: string },
): Promise<Settlement | null> {
  return db.settlement.findUnique({
    where: {
      network_asset_payer_authorizationNonce: {
        network: key.network,
        asset: key.asset,
        payer: key.payer,
        authorizationNonce: key.authorizationNonce.toLowerCase(),
      },
    },
  });
}

/**
 * Claims the job's settlement slot before any money moves, in one statement: locks the job
 * while it is open (FOR SHARE, as `holdState` does, so a transition's UPDATE waits for it),
 * then the proposal while it is this job's and pending (FOR UPDATE), in that order, and
 * inserts the `pending` row only when both held. A concurrent reject locks the same proposal
 * row, so a claimed proposal is never rejected and a rejected one is never claimed. The
 * partial unique index lets exactly one claim per job win, on one server or many
 * (SlotTakenError for the others).
 *
 * The statement runs in a transaction of its own (BEGIN, it, COMMIT: three round-trips where
 * the locks and the insert took five): committed by this process only, so a server that dies
 * while its claim waits leaves nothing behind, as before; and a claim that cannot get a
 * connection in time answers 503 (WRITE_TRANSACTION), nothing charged.
 */
export async function claimSettlementSlot(db: Db, claim: SettlementClaim): Promise<Settlement> {
  const now = new Date();
  const row: Settlement = {
    id: newId("stl"),
    jobId: claim.jobId,
    proposalId: claim.proposalId,
    payer: claim.payer,
    payTo: claim.payTo,
    amountAtomic: claim.amountAtomic,
    network: claim.network,
    asset: claim.asset,
    scheme: claim.scheme ?? "exact",
    authorizationNonce: claim.authorizationNonce.toLowerCase(),
    validBefore: claim.validBefore,
    escrowTerms: (claim.escrowTerms ?? null) as Settlement["escrowTerms"],
    txHash: null,
    senderAddress: null,
    senderNonce: null,
    status: "pending",
    failureReason: null,
    failureCode: null,
    lastError: null,
    claimBlock: claim.claimBlock,
    payload: claim.payload as Settlement["payload"],
    leaseUntil: null,
    inFlightUntil: claim.inFlightUntil,
    attempts: 0,
    createdAt: now,
    updatedAt: now,
    settledAt: null,
  };
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  // Timestamps are UTC without a zone, as Prisma writes them (the zone of the ISO text is ignored).
  const at = (date: Date | null) => (date === null ? null : date.toISOString());
  let held: ClaimHeld[];
  try {
    held = await db.$transaction(
      (tx) => tx.$queryRaw<ClaimHeld[]>`
      WITH "job" AS MATERIALIZED (
        SELECT "id" FROM "jobs"
        WHERE "id" = ${row.jobId} AND "status"::text = ${OPERATIONS.pay.from}
        FOR SHARE
      ), "proposal" AS MATERIALIZED (
        SELECT p."id" FROM "proposals" p JOIN "job" j ON j."id" = p."jobId"
        WHERE p."id" = ${row.proposalId} AND p."status" = 'pending'
        FOR UPDATE OF p
      ), "claimed" AS (
        INSERT INTO "settlements" ("id", "jobId", "proposalId", "payer", "payTo",
          "amountAtomic", "network", "asset", "scheme", "authorizationNonce", "validBefore",
          "escrowTerms", "status", "claimBlock", "payload", "inFlightUntil", "attempts",
          "createdAt", "updatedAt")
        SELECT ${row.id}, ${row.jobId}, ${row.proposalId}, ${row.payer}, ${row.payTo},
          ${row.amountAtomic}, ${row.network}, ${row.asset},
          ${row.scheme === "auth_capture" ? "auth-capture" : "exact"}::"PaymentScheme",
          ${row.authorizationNonce}, ${row.validBefore}, ${json(row.escrowTerms)}::jsonb,
          'pending', ${row.claimBlock}, ${json(row.payload)}::jsonb,
          ${at(row.inFlightUntil)}::timestamp(3), 0, ${at(now)}::timestamp(3),
          ${at(now)}::timestamp(3)
        FROM "proposal"
        RETURNING "id"
      )
      SELECT EXISTS (SELECT 1 FROM "job") AS "jobOpen",
        EXISTS (SELECT 1 FROM "claimed") AS "proposalPending"`,
      WRITE_TRANSACTION,
    );
  } catch (error) {
    if (!isUniqueViolation(error) && !isRawUniqueViolation(error)) throw error;
    throw new SlotTakenError();
  }
  if (!held[0]?.jobOpen) throw settleConflict("job_not_open", "the job is no longer open");
  if (!held[0]?.proposalPending) {
    throw settleConflict("proposal_not_pending", "the proposal is no longer pending");
  }
  return row;
}

interface ClaimHeld {
  jobOpen: boolean;
  proposalPending: boolean;
}

/** A unique violation of a raw statement: Prisma's P2010 carries the driver's error. */
function isRawUniqueViolation(error: unknown): boolean {
  const failed = error as {
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } };
  } | null;
  const cause = failed?.meta?.driverAdapterError?.cause;
  return (
    failed?.code === "P2010" &&
    (cause?.kind === "UniqueConstraintViolation" || cause?.originalCode === "23505")
  );
}

/** The claim lost to another row: this authorization's, or the job's live one. */
export class SlotTakenError extends Error {
  override name = "SlotTakenError";
}

export function settleConflict(
  code:
    | "settlement_pending"
    | "already_paid"
    | "job_not_open"
    | "proposal_not_pending"
    | "self_payment"
    | "payee_consent_pending",
  message: string,
): DomainError {
  return new DomainError("conflict", message, {}, code);
}

/** The claiming request is done with the row: the reconciler may resubmit it from now on. */
export async function endInFlight(db: Db, id: string): Promise<void> {
  await db.settlement.updateMany({ where: { id }, data: { inFlightUntil: null } });
}

/**
 * Stores the transaction hash as soon as it is known (the settlement is still pending), with
 * the gas key and nonce that send it: a later attempt with another nonce overwrites both.
 */
export async function recordSettlementTxHash(
  db: Db,
  where: { payer: string; authorizationNonce: string },
  txHash: string,
  sender?: { address: string; nonce: number },
): Promise<void> {
  await db.settlement.updateMany({
    where: {
      payer: where.payer,
      authorizationNonce: where.authorizationNonce.toLowerCase(),
      status: "pending",
    },
    data: {
      txHash: txHash.toLowerCase(),
      ...(sender ? { senderAddress: sender.address.toLowerCase(), senderNonce: sender.nonce } : {}),
    },
  });
}

/**
 * The chain showed the transfer: the row says so with its hash, and `payment.settled` is
 * announced in the same transaction. Also from `failed`: a row is only failed once its
 * authorization expired unused, so this happens only if the chain itself was rewritten; the
 * money moved, and the record must say where.
 */
export async function markSettlementSucceeded(
  db: Db,
  id: string,
  txHash: string,
): Promise<Settlement> {
  const data = {
    status: "succeeded" as const,
    txHash: txHash.toLowerCase(),
    settledAt: new Date(),
    failureReason: null,
    failureCode: null,
    lastError: null,
    leaseUntil: null,
    // Decided: no request is settling it any more.
    inFlightUntil: null,
  };
  return runWrite(db, async (tx) => {
    // Each update answers the row it changed (UPDATE ... RETURNING): no read after it.
    let [row] = await tx.settlement.updateManyAndReturn({ where: { id, status: "pending" }, data });
    if (!row) {
      [row] = await tx.settlement.updateManyAndReturn({ where: { id, status: "failed" }, data });
      if (row)
        console.error(`Settlement ${id} was failed but the chain shows its transfer ${txHash}`);
    }
    if (!row) return tx.settlement.findUniqueOrThrow({ where: { id } });
    if (row.scheme === "auth_capture") {
      // A protected payment: held in escrow now (payment.held), not paid to the agent.
      await createHold(tx, row);
    } else {
      announce(tx, "pay", { jobId: row.jobId, proposalId: row.proposalId, settlementId: id });
    }
    return row;
  });
}

/** Frees the slot: only once the chain has shown that this authorization can never move money. */
export async function markSettlementFailed(
  db: Db,
  id: string,
  failure: { code: string; reason: string },
): Promise<Settlement> {
  await db.settlement.updateMany({
    where: { id, status: "pending" },
    data: {
      status: "failed",
      failureCode: failure.code,
      failureReason: failure.reason.slice(0, 1000),
      leaseUntil: null,
    },
  });
  return db.settlement.findUniqueOrThrow({ where: { id } });
}

/** Why a pending row is still pending, and its transaction hash if one became known. */
export async function notePendingSettlement(
  db: Db,
  id: string,
  note: { error?: string; txHash?: string },
): Promise<Settlement> {
  await db.settlement.updateMany({
    where: { id, status: "pending" },
    data: {
      ...(note.error !== undefined ? { lastError: note.error.slice(0, 1000) } : {}),
      ...(note.txHash ? { txHash: note.txHash.toLowerCase() } : {}),
    },
  });
  return db.settlement.findUniqueOrThrow({ where: { id } });
}

// Timestamps are stored as UTC without a zone (Prisma's DateTime): compare in UTC.
/**
 * The background reconciler's claim on the oldest pending row older than `olderThanSeconds`
 * that no one else holds: `FOR UPDATE SKIP LOCKED` picks it without waiting for another
 * server, and the lease keeps other servers off it while the chain is asked.
 */
export async function leaseNextPendingSettlement(
  db: Db,
  options: { olderThanSeconds: number; leaseSeconds: number },
): Promise<Settlement | null> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    UPDATE "settlements" SET
      "leaseUntil" = timezone('utc', now()) + make_interval(secs => ${options.leaseSeconds}),
      "attempts" = "attempts" + 1
    WHERE "id" = (
      SELECT "id" FROM "settlements"
      WHERE "status" = 'pending'
        AND "createdAt" < timezone('utc', now()) - make_interval(secs => ${options.olderThanSeconds})
        AND ("leaseUntil" IS NULL OR "leaseUntil" < timezone('utc', now()))
      ORDER BY "createdAt"
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    RETURNING "id"`;
  const id = rows[0]?.id;
  return id ? db.settlement.findUnique({ where: { id } }) : null;
}

/** Leases one pending row unless someone holds it; false when it is held. */
export async function leaseSettlement(db: Db, id: string, seconds: number): Promise<boolean> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    UPDATE "settlements"
    SET "leaseUntil" = timezone('utc', now()) + make_interval(secs => ${seconds})
    WHERE "id" = ${id} AND "status" = 'pending'
      AND ("leaseUntil" IS NULL OR "leaseUntil" < timezone('utc', now()))
    RETURNING "id"`;
  return rows.length === 1;
}

/** Every pending row, oldest first (for the operator's reconcile command). */
export function listPendingSettlements(db: Db): Promise<Settlement[]> {
  return db.settlement.findMany({ where: { status: "pending" }, orderBy: { createdAt: "asc" } });
}

/** Keeps the reconciler off a pending row for `seconds` (its backoff between looks). */
export async function setSettlementLease(db: Db, id: string, seconds: number): Promise<void> {
  // The database's clock, as in the lease query: servers' clocks may differ.
  await db.$executeRaw`
    UPDATE "settlements"
    SET "leaseUntil" = timezone('utc', now()) + make_interval(secs => ${seconds})
    WHERE "id" = ${id} AND "status" = 'pending'`;
}
