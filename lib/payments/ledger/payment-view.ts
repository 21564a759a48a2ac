import { getAddress } from "viem";
import type { Db } from "@/lib/db";
import type { EscrowAction, EscrowHold, Settlement } from "@/lib/generated/prisma/client";
import { getJobRowOrThrow } from "@/lib/kernel/rows";
import { atomicToUsdc } from "@/lib/shared/money";
import type { PaymentView } from "@/lib/shared/view-types";
import { deliverBySeconds } from "../escrow/holds";
import { getEscrowSettings } from "../escrow/settings";
import { latestSettlementForJob } from "./settlements";

export type { PaymentView };

type HoldWithActions = EscrowHold & { actions: EscrowAction[] };

export function toPaymentView(
  row: Settlement,
  hold: HoldWithActions | null = null,
  deliveredAt: Date | null = null,
): PaymentView {
  return {
    mode: row.scheme === "auth_capture" ? "escrow" : "now",
    escrow: hold ? toEscrowView(hold, deliveredAt) : null,
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

function toEscrowView(hold: HoldWithActions, deliveredAt: Date | null): PaymentView["escrow"] {
  const reviewSeconds = getEscrowSettings()?.reviewSeconds;
  const releaseAt =
    deliveredAt && reviewSeconds !== undefined && hold.state === "held"
      ? new Date(deliveredAt.getTime() + reviewSeconds * 1000).toISOString()
      : null;
  return {
    state: hold.state,
    heldUsdc: atomicToUsdc(hold.amountAtomic - hold.capturedAtomic - hold.returnedAtomic),
    releasedUsdc: atomicToUsdc(hold.capturedAtomic - hold.feeAtomic),
    feeUsdc: atomicToUsdc(hold.feeAtomic),
    refundedUsdc: atomicToUsdc(hold.returnedAtomic),
    escrow: getAddress(hold.escrowAddress),
    paymentInfoHash: hold.paymentInfoHash,
    deliverBy: new Date(deliverBySeconds(hold) * 1000).toISOString(),
    releaseAt,
    heldUntil: hold.captureBy.toISOString(),
    dispute: hold.disputeOpenedAt
      ? {
          openedAt: hold.disputeOpenedAt.toISOString(),
          openedBy: getAddress(hold.disputeOpenedBy!),
          reason: hold.disputeReason ?? "",
          resolution: (hold.resolution as "release" | "refund" | "split" | null) ?? null,
          resolutionReason: hold.resolutionReason,
          resolvedAt: hold.resolvedAt?.toISOString() ?? null,
        }
      : null,
    transactions: [...hold.actions]
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map((action) => ({
        kind: action.kind,
        status: action.status,
        amountUsdc: atomicToUsdc(action.amountAtomic),
        feeUsdc: atomicToUsdc(action.feeAtomic),
        txHash: action.txHash,
        actor: action.actor,
        reason: action.reason,
        createdAt: action.createdAt.toISOString(),
      })),
  };
}

/** The job's live settlement, else its latest failed one; null when nothing was attempted. */
export async function getJobPayment(db: Db, jobId: string): Promise<PaymentView | null> {
  const job = await getJobRowOrThrow(db, jobId);
  const row = await latestSettlementForJob(db, job.id);
  if (!row) return null;
  const hold =
    row.scheme === "auth_capture"
      ? await db.escrowHold.findUnique({
          where: { settlementId: row.id },
          include: { actions: true },
        })
      : null;
  return toPaymentView(row, hold, job.deliveredAt);
}
