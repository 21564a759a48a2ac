// The held payments' record (escrow_holds, escrow_actions): a hold is created in the very
// transaction that marks its authorize settlement succeeded; a way out (release, refund,
// split) starts with one conditional UPDATE from `held` (one winner, on one server or many)
// and the insert of its first operator transaction as `pending`, before anything is sent;
// each transaction's outcome is then recorded from the chain (./actions.ts).
// Lock order: a write that changes both a job and its hold locks the job first (its
// transition, or lockJob where the hold's UPDATE comes first), then the hold, so that no two
// of them at once can each hold the row the other waits for (complete against the record of a
// reclaim did: tests/http/escrow-lock-order.test.ts).
import "server-only";
import type { Db } from "@/lib/db";
import type { EscrowAction, EscrowHold, Prisma, Settlement } from "@/lib/generated/prisma/client";
import { newId } from "@/lib/kernel/ids";
import { lockJob } from "@/lib/kernel/locks";
import { awardBadge } from "@/lib/kernel/reputation";
import { recordEvent } from "@/lib/kernel/write";
import { conflict } from "@/lib/platform/errors";
import { getSettlementNetwork } from "../chain/network";
import { escrowTermsOf } from "./escrow-terms";
import { paymentInfoHash } from "./payment-info";
import { feeOf, type Outcome, PLANS, planOf } from "./states";
import { settlementBudgetSeconds } from "../reconcile/settlement";

type Tx = Prisma.TransactionClient;

/** Called where the authorize settlement is marked succeeded: the money is now held. */
export async function createHold(tx: Tx, settlement: Settlement): Promise<void> {
  const terms = escrowTermsOf(settlement);
  if (!terms) return;
  const info = terms.paymentInfo;
  const { count } = await tx.escrowHold.createMany({
    data: [
      {
        id: newId("hold"),
        settlementId: settlement.id,
        jobId: settlement.jobId,
        paymentInfoHash: paymentInfoHash(info, terms.escrow, getSettlementNetwork().chain.id),
        escrowAddress: terms.escrow,
        payer: info.payer,
        receiver: info.receiver,
        amountAtomic: info.maxAmount,
        captureBy: new Date(info.authorizationExpiry * 1000),
        refundBy: new Date(info.refundExpiry * 1000),
        feeBps: info.maxFeeBps,
        feeReceiver: info.feeReceiver,
        deliverBy: new Date(terms.deliverBy * 1000),
      },
    ],
    skipDuplicates: true,
  });
  if (count === 1) {
    recordEvent(tx, {
      type: "payment.held",
      jobId: settlement.jobId,
      proposalId: settlement.proposalId,
      settlementId: settlement.id,
    });
  }
}

export function holdForJob(db: Db | Tx, jobId: string): Promise<EscrowHold | null> {
  return db.escrowHold.findFirst({
    where: { jobId, settlement: { status: "succeeded" } },
    orderBy: { createdAt: "desc" },
  });
}

/**
 * A hold's delivery deadline (chain seconds): from it the poster may cancel, and the agent can
 * no longer deliver (lib/marketplace/transitions.ts).
 */
export const deliverBySeconds = (hold: Pick<EscrowHold, "deliverBy" | "captureBy">): number =>
  (hold.deliverBy ?? hold.captureBy).getTime() / 1000;

/**
 * The last moment (chain seconds) a release may start: its capture must still be mined before
 * the capture deadline, within the time a transaction is given to be sent and confirmed. A
 * release that started later could revert at the deadline, with the job already completed.
 */
export const releasableUntil = (hold: Pick<EscrowHold, "captureBy">): number =>
  hold.captureBy.getTime() / 1000 - settlementBudgetSeconds();

/** releasableUntil's rule turned round, for a query: the capture deadlines still releasable at `now`. */
export const releasableCaptureByAfter = (now: number): Date =>
  new Date((now + settlementBudgetSeconds()) * 1000);

/**
 * 409 when the capture deadline has passed or is too close to release before it (chain
 * seconds `now`): nothing can be released any more, only reclaimed by the payer from the
 * deadline. Checked before a write that would release.
 */
export function assertCapturable(hold: Pick<EscrowHold, "captureBy">, now: number): void {
  if (now >= releasableUntil(hold)) {
    throw conflict(
      "payment_expired",
      `the held payment expires at ${hold.captureBy.toISOString()}: too late to release it; the poster can reclaim it from then`,
    );
  }
}

export const isDisputed = (hold: Pick<EscrowHold, "disputeOpenedAt" | "resolvedAt">) =>
  hold.disputeOpenedAt !== null && hold.resolvedAt === null;

export interface Start {
  outcome: Outcome;
  actor: string;
  reason?: string;
  /** split only: what the agent receives (the rest goes back to the poster). */
  agentAtomic?: bigint;
  /** An admin's resolution may move a disputed hold; nobody else may. */
  resolvesDispute?: boolean;
}

/**
 * Starts a way out of `held` in the caller's transaction: the one conditional UPDATE that
 * decides a race (complete against cancel, two servers, the auto-release against a dispute),
 * and the first operator transaction recorded `pending`. Returns that action (sent after the
 * commit by ./actions.ts runAction; the reconciler finishes it if the process dies).
 */
export async function startRelease(tx: Tx, hold: EscrowHold, start: Start): Promise<EscrowAction> {
  const plan = PLANS[start.outcome];
  const { count } = await tx.escrowHold.updateMany({
    where: {
      id: hold.id,
      state: plan.from,
      ...(start.resolvesDispute
        ? {}
        : { OR: [{ disputeOpenedAt: null }, { resolvedAt: { not: null } }] }),
    },
    data: { state: plan.during, updatedAt: new Date() },
  });
  if (count !== 1) {
    const now = await tx.escrowHold.findUniqueOrThrow({ where: { id: hold.id } });
    if (now.state === plan.from && isDisputed(now)) {
      throw conflict("dispute_open", "a dispute holds this payment until the platform resolves it");
    }
    throw conflict("payment_not_held", `the payment is no longer held (it is ${now.state})`);
  }
  return insertAction(tx, hold, plan.steps[0]!, start);
}

/** What the first (or next) step of a plan moves. */
function stepAmounts(
  hold: Pick<EscrowHold, "amountAtomic" | "capturedAtomic" | "returnedAtomic" | "feeBps">,
  kind: "capture" | "void",
  agentAtomic: bigint | undefined,
) {
  const remaining = hold.amountAtomic - hold.capturedAtomic - hold.returnedAtomic;
  if (kind === "void") return { amountAtomic: remaining, feeAtomic: 0n };
  const amount = agentAtomic ?? remaining;
  return { amountAtomic: amount, feeAtomic: feeOf(amount, hold.feeBps) };
}

export async function insertAction(
  tx: Tx,
  hold: EscrowHold,
  kind: "capture" | "void",
  start: Pick<Start, "actor" | "reason" | "agentAtomic">,
): Promise<EscrowAction> {
  return tx.escrowAction.create({
    data: {
      id: newId("esc"),
      holdId: hold.id,
      kind,
      ...stepAmounts(hold, kind, start.agentAtomic),
      actor: start.actor,
      reason: start.reason ?? null,
      // The request that started it sends it; the reconciler leaves it alone until then (the
      // longest a request may take to send and wait, as for a settlement).
      inFlightUntil: new Date(Date.now() + settlementBudgetSeconds() * 1000),
    },
  });
}

/**
 * A step the chain confirmed: the hold's amounts, then the plan's next step (a split's void
 * after its capture) or its end state, and the events, all in one transaction. Conditional on
 * the action still pending: a second confirmation changes nothing.
 */
export async function recordStepSucceeded(
  tx: Tx,
  action: EscrowAction,
  txHash: string,
): Promise<EscrowAction | null> {
  const { count } = await tx.escrowAction.updateMany({
    where: { id: action.id, status: "pending" },
    data: {
      status: "succeeded",
      txHash: txHash.toLowerCase(),
      decidedAt: new Date(),
      lastError: null,
    },
  });
  if (count !== 1) return null;
  const hold = await tx.escrowHold.update({
    where: { id: action.holdId },
    data:
      action.kind === "capture"
        ? {
            capturedAtomic: { increment: action.amountAtomic },
            feeAtomic: { increment: action.feeAtomic },
          }
        : { returnedAtomic: { increment: action.amountAtomic } },
  });
  // Money reached the agent: the poster's badge, for the releases no poster's completion
  // started (the auto-release, an admin's release or split).
  if (action.kind === "capture") await awardBadge(tx, hold.jobId);
  const settlement = await tx.settlement.findUniqueOrThrow({ where: { id: hold.settlementId } });
  recordEvent(tx, {
    type: action.kind === "capture" ? "payment.released" : "payment.refunded",
    jobId: hold.jobId,
    proposalId: settlement.proposalId,
    settlementId: settlement.id,
  });
  const outcome = planOf(hold.state);
  const plan = outcome ? PLANS[outcome] : undefined;
  const next = plan?.steps[plan.steps.indexOf(action.kind as "capture" | "void") + 1];
  if (plan && next && hold.amountAtomic - hold.capturedAtomic - hold.returnedAtomic > 0n) {
    return insertAction(tx, hold, next, {
      actor: action.actor,
      reason: action.reason ?? undefined,
    });
  }
  if (plan) {
    await tx.escrowHold.update({ where: { id: hold.id }, data: { state: plan.done } });
  }
  return null;
}

/**
 * A step the chain shows can never happen (it reverted, and the escrow's state says the
 * money is still held, or gone back to the payer by reclaim): the hold returns to `held`, or
 * records the reclaim. The job keeps the state its write gave it; the record says where the
 * money is.
 */
export async function recordStepFailed(
  tx: Tx,
  action: EscrowAction,
  why: string,
  reclaimed?: { txHash: string | null; amount: bigint },
): Promise<void> {
  const { count } = await tx.escrowAction.updateMany({
    where: { id: action.id, status: "pending" },
    data: { status: "failed", decidedAt: new Date(), lastError: why.slice(0, 500) },
  });
  if (count !== 1) return;
  if (reclaimed) {
    await recordReclaim(tx, action.holdId, reclaimed);
    return;
  }
  await tx.escrowHold.update({ where: { id: action.holdId }, data: { state: "held" } });
}

/** The payer took the hold back on chain (reclaim, after the capture deadline). */
export async function recordReclaim(
  tx: Tx,
  holdId: string,
  reclaimed: { txHash: string | null; amount: bigint },
): Promise<void> {
  // Its job is cancelled below: the job first, then the hold. Read once the job is locked, so
  // that a second record of the same reclaim (the reconciler's and a failed action's) waits
  // for the first and sees it.
  const { jobId } = await tx.escrowHold.findUniqueOrThrow({
    where: { id: holdId },
    select: { jobId: true },
  });
  await lockJob(tx, jobId);
  const hold = await tx.escrowHold.findUniqueOrThrow({ where: { id: holdId } });
  if (hold.state === "reclaimed") return;
  await tx.escrowHold.update({
    where: { id: holdId },
    data: { state: "reclaimed", returnedAtomic: { increment: reclaimed.amount } },
  });
  await tx.escrowAction.create({
    data: {
      id: newId("esc"),
      holdId,
      kind: "reclaim",
      amountAtomic: reclaimed.amount,
      status: "succeeded",
      txHash: reclaimed.txHash?.toLowerCase() ?? null,
      actor: hold.payer,
      reason: "reclaimed on chain by the payer after the capture deadline",
      decidedAt: new Date(),
    },
  });
  const settlement = await tx.settlement.findUniqueOrThrow({ where: { id: hold.settlementId } });
  recordEvent(tx, {
    type: "payment.refunded",
    jobId: hold.jobId,
    proposalId: settlement.proposalId,
    settlementId: settlement.id,
  });
  // A job still waiting on this money ends: it can no longer be paid from this hold.
  const { count } = await tx.job.updateMany({
    where: { id: hold.jobId, status: { in: ["in_progress", "delivered"] } },
    data: { status: "cancelled", cancelledAt: new Date(), updatedAt: new Date() },
  });
  if (count === 1) recordEvent(tx, { type: "job.cancelled", jobId: hold.jobId });
}
