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
import { recordReclaim, startRelease } from "./holds";
import { readPaymentState } from "./operator";
import { getEscrowSettings } from "./settings";
import type { Hex } from "viem";

/** Pending actions older than this are the reconciler's (their request is done or dead). */
const ACTION_GRACE_SECONDS = 10;

export async function reconcileEscrow(db: Db, { maxRows = 20 } = {}): Promise<number> {
  const settings = getEscrowSettings();
  if (!settings) return 0;
  let seen = 0;
  seen += await finishPendingActions(db, maxRows);
  const now = Number((await getChainClient().getBlock({ blockTag: "latest" })).timestamp);
  seen += await autoRelease(db, now, settings.reviewSeconds, maxRows);
  seen += await detectReclaims(db, now, maxRows);
  return seen;
}

async function finishPendingActions(db: Db, maxRows: number): Promise<number> {
  const due = await db.escrowAction.findMany({
    where: {
      status: "pending",
      createdAt: { lt: new Date(Date.now() - ACTION_GRACE_SECONDS * 1000) },
    },
    orderBy: { createdAt: "asc" },
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
  const holds = await db.escrowHold.findMany({
    where: {
      state: "held",
      OR: [{ disputeOpenedAt: null }, { resolvedAt: { not: null } }],
      settlement: { status: "succeeded" },
    },
    take: maxRows * 5,
  });
  let released = 0;
  for (const hold of holds) {
    if (released >= maxRows) break;
    const job = await db.job.findUnique({ where: { id: hold.jobId } });
    if (job?.status !== "delivered" || !job.deliveredAt) continue;
    if (job.deliveredAt.getTime() / 1000 + reviewSeconds > now) continue;
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
    where: { state: "held", captureBy: { lte: new Date(now * 1000) } },
    include: { settlement: true },
    // Round-robin: a hold checked and still holding money goes to the back (updatedAt below),
    // so that holds whose payers never reclaim cannot hide a later one that did.
    orderBy: { updatedAt: "asc" },
    take: maxRows,
  });
  for (const hold of expired) {
    try {
      const state = await readPaymentState(settings, hold.paymentInfoHash as Hex);
      if (state.capturable !== 0n) {
        await db.escrowHold.update({ where: { id: hold.id }, data: { updatedAt: new Date() } });
        continue;
      }
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
