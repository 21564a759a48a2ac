import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { conflict, isUniqueViolation } from "@/lib/errors";
import type { Prisma, Settlement } from "@/lib/generated/prisma/client";
import { newId } from "@/lib/marketplace/ids";

/**
 * The settlement ledger: the one record of money that moved for a job. At most one
 * pending-or-succeeded row per job is enforced by the database (settlements_one_live_per_job).
 */

export interface SettlementClaim {
  jobId: string;
  proposalId: string;
  payer: Address;
  payTo: Address;
  amountAtomic: bigint;
  network: string;
  asset: Address;
  authorizationNonce: string;
  validBefore: bigint;
}

/** The succeeded settlement for exactly this job, proposal and hash, if any. */
export async function findSucceededSettlement(
  db: Db | Prisma.TransactionClient,
  where: { jobId: string; proposalId: string; txHash: string },
): Promise<Settlement | null> {
  return db.settlement.findFirst({
    where: {
      jobId: where.jobId,
      proposalId: where.proposalId,
      txHash: where.txHash.toLowerCase(),
      status: "succeeded",
    },
  });
}

export async function liveSettlementForJob(
  db: Db | Prisma.TransactionClient,
  jobId: string,
): Promise<Settlement | null> {
  return db.settlement.findFirst({ where: { jobId, status: { in: ["pending", "succeeded"] } } });
}

/**
 * Claims the job's settlement slot before any money moves: inserts the `pending` row with
 * payer and authorization nonce. The partial unique index lets exactly one claim per job
 * win, on one server or many; the others get 409 and are never settled.
 */
export async function claimSettlementSlot(db: Db, claim: SettlementClaim): Promise<Settlement> {
  try {
    return await db.settlement.create({
      data: {
        id: newId("stl"),
        ...claim,
        authorizationNonce: claim.authorizationNonce.toLowerCase(),
        status: "pending",
      },
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw conflict("a payment for this job is already in flight or done");
    }
    throw error;
  }
}

export async function markSettlementSucceeded(
  db: Db,
  id: string,
  txHash: string,
): Promise<Settlement> {
  return db.settlement.update({
    where: { id },
    data: {
      status: "succeeded",
      txHash: txHash.toLowerCase(),
      settledAt: new Date(),
      failureReason: null,
    },
  });
}

/** Frees the slot: a failed settlement moved no money. */
export async function markSettlementFailed(
  db: Db,
  id: string,
  reason: string,
): Promise<Settlement> {
  return db.settlement.update({
    where: { id },
    data: { status: "failed", failureReason: reason.slice(0, 1000) },
  });
}
