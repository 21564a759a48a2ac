// The held payments' background work, one pass per reconciler tick on every server:
//   1. pending operator transactions nobody is sending: decided from the chain, resent only
//      when the chain shows nothing happened and the node holds nothing of ours;
//   2. auto-release: delivered, neither completed nor disputed within the review window;
//   3. reclaim: a hold past its capture deadline that the escrow no longer holds was taken back
//      by the payer on chain; the record says so.
// Times are the chain's (its latest block), as the contract's are.
import "server-only";
import type { Db } from "@/lib/db";
import { transition } from "@/lib/kernel/lifecycle";
import { runWrite } from "@/lib/kernel/write";
import { errorSummary } from "@/lib/platform/redact";
import { getChainClient } from "../chain/client";
import { decideAction, findEscrowLog, leaseAction, runAction } from "./actions";
import { recordReclaim, releasableCaptureByAfter, startRelease } from "./holds";
import { readPaymentState } from "./operator";
import { getEscrowSettings } from "./settings";
import { OPEN_STATES } from "./states";
import type { Hex } from "viem";

/** Pending actions older than this are the reconciler's (their request is done or dead). */
const ACTION_GRACE_SECONDS = 10;

export async function reconcileEscrow(db: Db, { maxRows = 20 } = {}): Promise<number> {
  const settings = getEscrowSettings();
  if (!settings) return 0;
  let seen = 0;
  seen += await finishPendingActions(db, maxRows);
  // Every server runs a pass every few seconds: with no hold open (nothing to reclaim or
  // release) it costs one indexed query, not a chain call for the chain's clock.
  if (!(await anyOpenHold(db))) return seen;
  const now = Number((await getChainClient().getBlock({ blockTag: "latest" })).timestamp);
  // Reclaims first: a hold the payer took back is never released afterwards.
  seen += await detectReclaims(db, now, maxRows);
  seen += await autoRelease(db, now, settings.reviewSeconds, maxRows);
  return seen;
}

async function anyOpenHold(db: Db): Promise<boolean> {
  const open = await db.escrowHold.findFirst({
    where: { state: { in: [...OPEN_STATES] } },
    select: { id: true },
  });
  return open !== null;
}

async function finishPendingActions(db: Db, maxRows: number): Promise<number> {
  const now = new Date();
  // Only what nobody holds, least recently looked at first: an action the chain cannot
  // decide yet (leased again after each look) does not keep the others waiting.
  const due = await db.escrowAction.findMany({
    where: {
      status: "pending",
      createdAt: { lt: new Date(Date.now() - ACTION_GRACE_SECONDS * 1000) },
      AND: [
        { OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
        { OR: [{ inFlightUntil: null }, { inFlightUntil: { lt: now } }] },
      ],
    },
    orderBy: [{ leaseUntil: { sort: "asc", nulls: "first" } }, { createdAt: "asc" }],
    take: maxRows,
  });
  for (const action of due) {
    if (!(await leaseAction(db, action.id, 120))) continue;
    try {
      const { verdict, next } = await decideAction(db, action.id);
      if (next) await runAction(db, next);
      else if (verdict.state === "pending" && !verdict.txPending) await runAction(db, action.id);
    } catch (error) {
      console.error(`Escrow reconciler: action ${action.id}: ${errorSummary(error)}`);
    }
  }
  return due.length;
}

/** Delivered jobs whose review window passed: completed for the poster, the payment released. */
async function autoRelease(db: Db, now: number, reviewSeconds: number, maxRows: number) {
  // Exactly the due ones, oldest delivery first: held, not frozen by a dispute, delivered at
  // least the review window ago, and still releasable (holds.ts: releasableUntil, a capture
  // deadline at least a transaction's budget away).
  const dueBefore = new Date((now - reviewSeconds) * 1000);
  const releasableAfter = releasableCaptureByAfter(now);
  const due = await db.$queryRaw<{ id: string }[]>`
    SELECT h."id" FROM "escrow_holds" h JOIN "jobs" j ON j."id" = h."jobId"
     WHERE h."state" = 'held'
       AND (h."disputeOpenedAt" IS NULL OR h."resolvedAt" IS NOT NULL)
       AND h."captureBy" > ${releasableAfter}
       AND j."status" = 'delivered' AND j."deliveredAt" <= ${dueBefore}
     ORDER BY j."deliveredAt" ASC
     LIMIT ${maxRows}`;
  let released = 0;
  for (const { id } of due) {
    const hold = await db.escrowHold.findUniqueOrThrow({ where: { id } });
    const job = await db.job.findUniqueOrThrow({ where: { id: hold.jobId } });
    try {
      const action = await runWrite(db, async (tx) => {
        await transition(tx, "complete", job.id, {
          completedAt: new Date(),
          updatedAt: new Date(),
        });
        return startRelease(tx, hold, {
          outcome: "release",
          actor: "auto-release",
          reason: "the review window passed without completion or dispute",
        });
      });
      released++;
      await runAction(db, action.id);
    } catch (error) {
      // Another server, the poster or a dispute got there first: nothing to do.
      console.info(`Auto-release of ${hold.jobId} skipped: ${errorSummary(error)}`);
    }
  }
  return released;
}

async function detectReclaims(db: Db, now: number, maxRows: number) {
  const settings = getEscrowSettings()!;
  const expired = await db.escrowHold.findMany({
    // Held, or on its way out when the payer's reclaim beat the operator's transaction.
    where: {
      state: { in: [...OPEN_STATES] },
      captureBy: { lte: new Date(now * 1000) },
    },
    include: { settlement: true },
    // Round-robin: a hold checked and still holding money goes to the back (updatedAt below),
    // so that holds whose payers never reclaim cannot hide a later one that did.
    orderBy: { updatedAt: "asc" },
    take: maxRows,
  });
  for (const hold of expired) {
    try {
      const state = await readPaymentState(settings, hold.paymentInfoHash as Hex);
      // Looked at: to the back of the queue whatever it shows.
      await db.escrowHold.update({ where: { id: hold.id }, data: { updatedAt: new Date() } });
      if (state.capturable !== 0n) continue;
      const latest = await getChainClient().getBlockNumber();
      const log = await findEscrowLog(
        hold.paymentInfoHash as Hex,
        "PaymentReclaimed",
        hold.settlement.claimBlock ?? 0n,
        latest,
      );
      if (!log) continue;
      await runWrite(db, (tx) => recordReclaim(tx, hold.id, log));
    } catch (error) {
      console.error(`Escrow reconciler: reclaim of ${hold.id}: ${errorSummary(error)}`);
    }
  }
  return expired.length;
}
