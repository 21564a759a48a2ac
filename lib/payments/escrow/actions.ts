// The operator's transactions on a held payment (capture, void), exactly once: each is a
// `pending` escrow_actions row before it is sent (./holds.ts), its hash recorded before the
// broadcast, and its outcome taken from the chain only: the receipt of the recorded hash, else
// the escrow's own `paymentState` (only our operator can capture or void, and one action per
// hold is pending at a time, so a change there is this action's), with the log that made it.
// A request sends its action and waits up to the confirmation timeout; whatever it could not
// decide, the background reconciler (./reconcile.ts) decides later, resending only when the
// chain shows nothing happened and the node does not hold the transaction.
import "server-only";
import { type Hex, TransactionReceiptNotFoundError } from "viem";
import type { Db } from "@/lib/db";
import type { EscrowAction } from "@/lib/generated/prisma/client";
import { runWrite } from "@/lib/kernel/write";
import { errorSummary } from "@/lib/platform/redact";
import { getChainClient } from "../chain/client";
import { transactionInNode } from "../chain/transactions";
import { LOG_RANGE_BLOCKS } from "../chain/verify-receipt";
import { getSettlementNetwork } from "../chain/network";
import { escrowAbi } from "./abi";
import { escrowTermsOf } from "./escrow-terms";
import { recordStepFailed, recordStepSucceeded } from "./holds";
import { type OperatorCall, readPaymentState, receiptWithin, sendOperatorCall } from "./operator";
import { escrowSettingsOrUnavailable } from "./requirements";

async function load(db: Db, actionId: string) {
  const action = await db.escrowAction.findUniqueOrThrow({
    where: { id: actionId },
    include: { hold: { include: { settlement: true } } },
  });
  const terms = escrowTermsOf(action.hold.settlement);
  if (!terms) throw new Error(`escrow action ${actionId}: its settlement has no escrow terms`);
  return { action, hold: action.hold, settlement: action.hold.settlement, info: terms.paymentInfo };
}

function callFor(action: EscrowAction, loaded: Awaited<ReturnType<typeof load>>): OperatorCall {
  if (action.kind === "capture") {
    return {
      kind: "capture",
      info: loaded.info,
      amount: action.amountAtomic,
      fee: action.feeAtomic,
      feeReceiver: loaded.info.feeReceiver,
    };
  }
  if (action.kind === "void") return { kind: "void", info: loaded.info };
  throw new Error(`escrow action ${action.id}: the operator does not send ${action.kind}`);
}

/**
 * Sends a pending action (the caller owns it: it started it, or leased it) and decides it
 * from the chain, waiting up to the confirmation timeout. Runs the plan's next step the same
 * way. Returns when every step is decided or one is left pending for the reconciler.
 */
export async function runAction(db: Db, actionId: string): Promise<void> {
  try {
    await runSteps(db, actionId);
  } catch (error) {
    // The write that started it is committed; the reconciler finishes what is left.
    console.error(`Escrow action ${actionId}: ${errorSummary(error)}`);
  }
}

async function runSteps(db: Db, actionId: string): Promise<void> {
  let nextId: string | null = actionId;
  while (nextId) {
    const loaded = await load(db, nextId);
    if (loaded.action.status !== "pending") return;
    const settings = escrowSettingsOrUnavailable();
    let hash: Hex | undefined;
    try {
      // Sent only while the escrow holds exactly what the record says it holds: a capture
      // that already landed (a split's is not refused by the contract a second time) is
      // decided from the chain below, never sent again.
      const { hold } = loaded;
      const expected = hold.amountAtomic - hold.capturedAtomic - hold.returnedAtomic;
      const onChain = await readPaymentState(settings, hold.paymentInfoHash as Hex);
      if (onChain.capturable !== expected) {
        throw new Error(
          `the escrow holds ${onChain.capturable}, the record ${expected}: not sent, decided from the chain`,
        );
      }
      hash = await sendOperatorCall(
        settings,
        callFor(loaded.action, loaded),
        async ({ hash }) => {
          const { count } = await db.escrowAction.updateMany({
            where: { id: loaded.action.id, status: "pending" },
            data: { txHash: hash.toLowerCase(), attempts: { increment: 1 } },
          });
          if (count !== 1) throw new Error("the action is no longer pending");
        },
        // A transaction whose hash the ledger does not have is never broadcast.
        { abortIfUnrecorded: true },
      );
    } catch (error) {
      // Refused before the broadcast (it would revert now), or the node did not answer: the
      // chain's state decides below.
      await noteError(db, loaded.action.id, `send: ${errorSummary(error)}`);
    }
    if (hash) {
      try {
        await receiptWithin(hash);
      } catch (error) {
        await noteError(db, loaded.action.id, `receipt: ${errorSummary(error)}`);
      }
    }
    await db.escrowAction.updateMany({
      where: { id: loaded.action.id },
      data: { inFlightUntil: null },
    });
    const decided = await decideAction(db, loaded.action.id).catch(async (error) => {
      await noteError(db, loaded.action.id, `decide: ${errorSummary(error)}`);
      return { next: null };
    });
    nextId = decided.next;
  }
}

async function noteError(db: Db, id: string, error: string) {
  console.warn(`Escrow action ${id}: ${error}`);
  await db.escrowAction
    .updateMany({ where: { id, status: "pending" }, data: { lastError: error.slice(0, 500) } })
    .catch(() => undefined);
}

export type Verdict =
  | { state: "succeeded"; txHash: Hex }
  | { state: "failed"; why: string; reclaimed?: { txHash: Hex | null; amount: bigint } }
  | { state: "pending"; txPending: boolean };

/**
 * The chain's word on a pending action. Throws when the chain cannot say (the row stays
 * pending).
 */
export async function judgeAction(db: Db, actionId: string): Promise<Verdict> {
  const loaded = await load(db, actionId);
  const { action, hold, settlement } = loaded;
  const settings = escrowSettingsOrUnavailable();
  const client = getChainClient();
  const latest = await client.getBlock({ blockTag: "latest" });
  // "Never" is decided at a block deep enough to be final (Base: 5 behind the head); "done"
  // at the head, as for settlements (lib/payments/reconcile/settlement.ts).
  const { finalityBlocks } = getSettlementNetwork();
  const final =
    finalityBlocks > 0 && latest.number > BigInt(finalityBlocks)
      ? await client.getBlock({ blockNumber: latest.number - BigInt(finalityBlocks) })
      : latest;

  let reverted = false;
  let txPending = false;
  if (action.txHash) {
    try {
      const receipt = await client.getTransactionReceipt({ hash: action.txHash as Hex });
      if (receipt.status === "success") return { state: "succeeded", txHash: action.txHash as Hex };
      reverted = receipt.blockNumber <= final.number;
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
      txPending = await waitsInNode(action.txHash as Hex);
    }
  }

  const before = hold.amountAtomic - hold.capturedAtomic - hold.returnedAtomic;
  const state = await readPaymentState(settings, hold.paymentInfoHash as Hex, latest.number);
  const happened =
    action.kind === "capture"
      ? state.capturable <= before - action.amountAtomic
      : state.capturable === 0n;
  const fromBlock = settlement.claimBlock ?? 0n;
  if (happened) {
    // The hold emptied: by our transaction, or by the payer's reclaim (for a capture as for a
    // void: a reclaim after the capture deadline empties it too).
    const reclaim = await findEscrowLog(
      hold.paymentInfoHash as Hex,
      "PaymentReclaimed",
      fromBlock,
      latest.number,
    );
    if (reclaim) {
      return {
        state: "failed",
        why: "the payer reclaimed the payment on chain first",
        reclaimed: { txHash: reclaim.txHash, amount: reclaim.amount },
      };
    }
    const log = await findEscrowLog(
      hold.paymentInfoHash as Hex,
      action.kind === "capture" ? "PaymentCaptured" : "PaymentVoided",
      fromBlock,
      latest.number,
    );
    if (!log)
      throw new Error(
        `escrow ${action.kind} of ${hold.paymentInfoHash} happened but no log was found`,
      );
    return { state: "succeeded", txHash: log.txHash! };
  }
  if (txPending) return { state: "pending", txPending: true };
  // It did not happen and nothing of ours is waiting. It never can when the escrow no longer
  // holds enough (reclaimed, or the deadline passed for a capture).
  const finalState =
    final.number === latest.number
      ? state
      : await readPaymentState(settings, hold.paymentInfoHash as Hex, final.number);
  if (finalState.capturable === 0n && finalState.collected) {
    const reclaim = await findEscrowLog(
      hold.paymentInfoHash as Hex,
      "PaymentReclaimed",
      fromBlock,
      latest.number,
    );
    return {
      state: "failed",
      why: "the escrow no longer holds this payment",
      ...(reclaim ? { reclaimed: { txHash: reclaim.txHash, amount: reclaim.amount } } : {}),
    };
  }
  if (
    action.kind === "capture" &&
    final.timestamp >= BigInt(Math.floor(hold.captureBy.getTime() / 1000))
  ) {
    return {
      state: "failed",
      why: "the capture deadline passed: only the payer can take it back now",
    };
  }
  if (reverted)
    return { state: "failed", why: "the transaction reverted and the escrow is unchanged" };
  return { state: "pending", txPending: false };
}

/** Records the verdict; returns the plan's next step to run, if one was started. */
export async function decideAction(
  db: Db,
  actionId: string,
): Promise<{ next: string | null; verdict: Verdict }> {
  const verdict = await judgeAction(db, actionId);
  if (verdict.state === "pending") return { next: null, verdict };
  const action = await db.escrowAction.findUniqueOrThrow({ where: { id: actionId } });
  const next = await runWrite(db, async (tx) => {
    if (verdict.state === "succeeded") return recordStepSucceeded(tx, action, verdict.txHash);
    await recordStepFailed(tx, action, verdict.why, verdict.reclaimed);
    return null;
  });
  if (verdict.state === "succeeded")
    console.info(`Escrow ${action.kind} ${action.id}: succeeded (${verdict.txHash})`);
  else console.warn(`Escrow ${action.kind} ${action.id}: failed (${verdict.why})`);
  return { next: next?.id ?? null, verdict };
}

/**
 * The node has the transaction: waiting, or mined since its receipt was asked for (then the
 * next look finds the receipt; the escrow's state read before it could be stale).
 */
async function waitsInNode(hash: Hex): Promise<boolean> {
  return (await transactionInNode(getChainClient(), hash)) !== undefined;
}

/** The newest log of `eventName` for this payment, searched backwards in LOG_RANGE_BLOCKS windows. */
export async function findEscrowLog(
  paymentInfoHash: Hex,
  eventName: "PaymentCaptured" | "PaymentVoided" | "PaymentReclaimed",
  fromBlock: bigint,
  toBlock: bigint,
): Promise<{ txHash: Hex | null; amount: bigint } | null> {
  const settings = escrowSettingsOrUnavailable();
  const client = getChainClient();
  for (let to = toBlock; to >= fromBlock; to -= LOG_RANGE_BLOCKS) {
    const from = to - LOG_RANGE_BLOCKS + 1n > fromBlock ? to - LOG_RANGE_BLOCKS + 1n : fromBlock;
    const logs = await client.getContractEvents({
      address: settings.escrow,
      abi: escrowAbi,
      eventName,
      args: { paymentInfoHash },
      fromBlock: from,
      toBlock: to,
    });
    const found = logs.filter((log) => !log.removed).at(-1);
    if (found) {
      const amount = (found.args as { amount?: bigint }).amount ?? 0n;
      return { txHash: found.transactionHash, amount };
    }
    if (from === fromBlock) break;
  }
  return null;
}

/**
 * Takes a pending action nobody is sending (not in flight, not leased) for `seconds`: the
 * conditional UPDATE lets one server of many have it.
 */
export async function leaseAction(db: Db, id: string, seconds: number): Promise<boolean> {
  const now = new Date();
  const { count } = await db.escrowAction.updateMany({
    where: {
      id,
      status: "pending",
      AND: [
        { OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
        { OR: [{ inFlightUntil: null }, { inFlightUntil: { lt: now } }] },
      ],
    },
    data: { leaseUntil: new Date(now.getTime() + seconds * 1000) },
  });
  return count === 1;
}
