import { getAddress } from "viem";
import type { Db } from "@/lib/db";
import type { Settlement } from "@/lib/generated/prisma/client";
import { getJobRowOrThrow } from "@/lib/kernel/rows";
import { atomicToUsdc } from "@/lib/shared/money";
import type { PaymentView } from "@/lib/shared/view-types";
import { latestSettlementForJob } from "./settlements";

export type { PaymentView };

export function toPaymentView(row: Settlement): PaymentView {
  return {
    status: row.status,
    txHash: row.txHash,
    network: row.network,
    payer: getAddress(row.payer),
    payTo: getAddress(row.payTo),
    amountUsdc: atomicToUsdc(row.amountAtomic),
    proposalId: row.proposalId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The job's live settlement, else its latest failed one; null when nothing was attempted. */
export async function getJobPayment(db: Db, jobId: string): Promise<PaymentView | null> {
  const job = await getJobRowOrThrow(db, jobId);
  const row = await latestSettlementForJob(db, job.id);
  return row ? toPaymentView(row) : null;
}
