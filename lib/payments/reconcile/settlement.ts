import type { PaymentPayload } from "@x402/core/types";
import { getAddress, type Hex, isAddressEqual, type PublicClient } from "viem";
import { getConfig } from "@/lib/platform/config";
import type { Db } from "@/lib/db";
import type { Settlement } from "@/lib/generated/prisma/client";
import { errorSummary } from "@/lib/platform/redact";
import { getChainClient } from "../chain/client";
import { transactionInNode } from "../chain/transactions";
import { getFacilitator } from "../facilitator/current";
import { confirmationTimeoutMs, getSettlementNetwork } from "../chain/network";
import { paymentRequirementsFor } from "../settle/requirements";
import { submitAuthorize } from "../escrow/authorize";
import { escrowTermsOf, transferRecipientOf } from "../escrow/escrow-terms";
import {
  leaseNextPendingSettlement,
  markSettlementFailed,
  markSettlementSucceeded,
  notePendingSettlement,
  setSettlementLease,
} from "../ledger/settlements";
import {
  findAuthorizationLog,
  isAuthorizationUsed,
  verifyTransferReceipt,
} from "../chain/verify-receipt";

/**
 * The fate of a pending settlement, from the chain, the only witness that counts:
 * - `transferred`: the authorization was used, by this transaction, moving exactly the bid
 *   from the payer to the payee (its receipt checked);
 * - `never`: it can never move money: its `validBefore` has passed by the timestamp of a
 *   block deep enough to be final (`finalityBlocks`), and at that block it is unused; or the
 *   token logged its cancellation;
 * - `in_flight`: unused and still able to land. `txPending` says whether the transaction we
 *   recorded waits in the node (not mined, not dropped, not reverted).
 * Anything the chain cannot answer for sure (a lagging node, a used authorization whose log is
 * missing) throws: the row stays pending.
 */
export type ChainVerdict =
  | { state: "transferred"; txHash: Hex }
  | { state: "never"; reason: "expired" | "canceled" }
  | { state: "in_flight"; txPending: boolean };

export async function judgeFromChain(
  client: PublicClient,
  row: Settlement,
  finalityBlocks: number,
): Promise<ChainVerdict> {
  const asset = getAddress(row.asset);
  const payer = getAddress(row.payer);
  const nonce = row.authorizationNonce as Hex;
  const expected = {
    asset,
    from: payer,
    // A protected payment's transfer goes to the escrow's collector, not to the payee.
    to: transferRecipientOf(row),
    amountAtomic: row.amountAtomic,
    nonce,
  };
  // Every read is pinned to one block, so a node behind a load balancer cannot mix heights.
  const latest = await client.getBlock({ blockTag: "latest" });
  if (
    await isAuthorizationUsed(client, {
      asset,
      authorizer: payer,
      nonce,
      blockNumber: latest.number,
    })
  ) {
    if (row.txHash) {
      const check = await verifyTransferReceipt(client, { ...expected, txHash: row.txHash as Hex });
      if (check.ok) return { state: "transferred", txHash: row.txHash as Hex };
    }
    const log = await findAuthorizationLog(client, {
      asset,
      authorizer: payer,
      nonce,
      fromBlock: row.claimBlock ?? 0n,
      toBlock: latest.number,
      validBefore: row.validBefore,
    });
    if (log.kind === "canceled") return { state: "never", reason: "canceled" };
    const check = await verifyTransferReceipt(client, { ...expected, txHash: log.txHash });
    if (!check.ok) {
      // The signature fixes payee and amount, so this means a token we do not understand.
      throw new Error(`authorization used by ${log.txHash} but ${check.reason}`);
    }
    return { state: "transferred", txHash: log.txHash };
  }
  // Unused now. It can never land once a final block's timestamp reached validBefore: a
  // transfer needs block.timestamp < validBefore, so it could only sit in a block before that
  // one, and those are final.
  const final =
    finalityBlocks > 0 && latest.number > BigInt(finalityBlocks)
      ? await client.getBlock({ blockNumber: latest.number - BigInt(finalityBlocks) })
      : latest;
  if (final.timestamp >= row.validBefore) {
    if (
      final.number !== latest.number &&
      (await isAuthorizationUsed(client, {
        asset,
        authorizer: payer,
        nonce,
        blockNumber: final.number,
      }))
    ) {
      throw new Error("the authorization is used at a final block but not at the head");
    }
    return { state: "never", reason: "expired" };
  }
  return {
    state: "in_flight",
    txPending: row.txHash ? await waitsInNode(client, row.txHash as Hex) : false,
  };
}

/** The transaction is known to the node and not yet mined (mined ones were judged above). */
async function waitsInNode(client: PublicClient, hash: Hex): Promise<boolean> {
  const tx = await transactionInNode(client, hash);
  return tx !== undefined && tx.blockNumber === null;
}

export interface ReconcileOptions {
  /**
   * Send the stored authorization to the facilitator again when nothing of it is in flight and
   * no request may still be settling it: a crash or an outage interrupted the settlement and
   * the payer's authorization is still valid. Safe: an authorization moves money at most
   * once, whoever submits it.
   */
  resubmit?: boolean;
}

/**
 * Settles a pending row from the chain: succeeded with the transfer's hash, failed once it can
 * never land, else left pending (and, with `resubmit`, sent again). Returns the row after.
 */
export async function reconcileSettlement(
  db: Db,
  row: Settlement,
  options: ReconcileOptions = {},
): Promise<Settlement> {
  if (row.status !== "pending") return row;
  const network = getSettlementNetwork();
  if (row.network !== network.network || !isAddressEqual(getAddress(row.asset), network.asset)) {
    // Made on another network than this server settles on: an operator's case.
    console.error(
      `Settlement ${row.id} is on ${row.network}; this server settles on ${network.network}`,
    );
    return row;
  }
  const verdict = await judgeFromChain(getChainClient(), row, network.finalityBlocks);
  return applyVerdict(db, row, verdict, options);
}

/** Records what the chain said about a pending row (and resubmits it when asked and safe). */
export async function applyVerdict(
  db: Db,
  row: Settlement,
  verdict: ChainVerdict,
  options: ReconcileOptions = {},
): Promise<Settlement> {
  if (verdict.state === "transferred") return markSettlementSucceeded(db, row.id, verdict.txHash);
  if (verdict.state === "never") {
    return markSettlementFailed(db, row.id, {
      code: "settlement_failed",
      reason:
        verdict.reason === "canceled"
          ? "the payer canceled the authorization before it was settled"
          : "the authorization expired without being settled",
    });
  }
  const inFlight = row.inFlightUntil !== null && row.inFlightUntil.getTime() > Date.now();
  if (!options.resubmit || verdict.txPending || inFlight || !row.payload) return row;
  return resubmit(db, row);
}

async function resubmit(db: Db, row: Settlement): Promise<Settlement> {
  const terms = escrowTermsOf(row);
  const signature = (row.payload as { payload?: { signature?: unknown } }).payload?.signature;
  if (terms && typeof signature === "string") {
    // A protected payment: the operator authorizes the stored terms again. Safe likewise: the
    // escrow collects a payment once (PaymentAlreadyCollected), the token an authorization once.
    const submitted = await submitAuthorize(db, row, terms, signature as Hex);
    const after = await notePendingSettlement(db, row.id, {
      error: submitted.note ? `resubmitted: ${submitted.note}` : undefined,
      txHash: submitted.response?.transaction || undefined,
    });
    return reconcileSettlement(db, after, { resubmit: false });
  }
  const requirements = await paymentRequirementsFor({
    payTo: getAddress(row.payTo),
    amountAtomic: row.amountAtomic,
  });
  let note: { error?: string; txHash?: string };
  try {
    const settled = await getFacilitator().settle(
      row.payload as unknown as PaymentPayload,
      requirements,
    );
    note = {
      error: settled.success ? undefined : `resubmitted: ${settled.errorReason ?? "not settled"}`,
      txHash: settled.transaction || undefined,
    };
  } catch (error) {
    note = { error: `resubmitted: ${errorSummary(error)}` };
  }
  // Whatever the facilitator said, the chain decides; ask it once more.
  const after = await notePendingSettlement(db, row.id, note);
  return reconcileSettlement(db, after, { resubmit: false });
}

/** Reconciles the job's pending settlement if it is older than the configured grace period. */
export async function reconcileStalePending(
  db: Db,
  row: Settlement | null,
  { force = false } = {},
): Promise<Settlement | null> {
  if (!row || row.status !== "pending") return row;
  const ageMs = Date.now() - row.createdAt.getTime();
  if (!force && ageMs < getConfig().SETTLEMENT_RECONCILE_AFTER_SECONDS * 1000) return row;
  try {
    return await reconcileSettlement(db, row);
  } catch (error) {
    console.error(`Could not reconcile settlement ${row.id}: ${errorSummary(error)}`);
    return row;
  }
}

/** The longest one settlement request may take (the facilitator may wait twice for it). */
export function settlementBudgetSeconds(): number {
  const wait = confirmationTimeoutMs(getConfig().FACILITATOR_TIMEOUT_SECONDS * 1000) / 1000;
  return Math.ceil(2 * wait + 15);
}

/**
 * One pass of the background reconciler: leases pending rows older than the grace period one
 * at a time (`FOR UPDATE SKIP LOCKED`: several servers never take the same row) and settles
 * them from the chain, resubmitting interrupted ones. Returns how many rows it looked at.
 */
export async function reconcilePendingSettlements(db: Db, { maxRows = 20 } = {}): Promise<number> {
  const config = getConfig();
  let seen = 0;
  for (; seen < maxRows; seen++) {
    const row = await leaseNextPendingSettlement(db, {
      olderThanSeconds: config.SETTLEMENT_RECONCILE_AFTER_SECONDS,
      // Long enough for a resubmission and the chain's verdict after it.
      leaseSeconds: settlementBudgetSeconds() + 30,
    });
    if (!row) break;
    try {
      const after = await reconcileSettlement(db, row, { resubmit: true });
      if (after.status !== "pending") {
        console.info(
          `Settlement ${row.id} reconciled: ${after.status}${after.txHash ? ` (${after.txHash})` : ""}`,
        );
        continue;
      }
    } catch (error) {
      await notePendingSettlement(db, row.id, { error: `reconcile: ${errorSummary(error)}` }).catch(
        () => undefined,
      );
      console.error(`Could not reconcile settlement ${row.id}: ${errorSummary(error)}`);
    }
    // Still pending: look again later, backing off per row (not again in this pass).
    const interval = Math.max(config.SETTLEMENT_RECONCILE_INTERVAL_SECONDS, 1);
    await setSettlementLease(
      db,
      row.id,
      Math.min(interval * 2 ** Math.min(row.attempts - 1, 6), 60),
    );
  }
  return seen;
}
