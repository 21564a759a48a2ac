import { type Address, getAddress, type Hex } from "viem";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db";
import type { Settlement } from "@/lib/generated/prisma/client";
import { getChainClient } from "./chain-client";
import { liveSettlementForJob, markSettlementFailed, markSettlementSucceeded } from "./settlements";
import { findAuthorizationTx, verifyTransferReceipt } from "./verify-receipt";

/**
 * Settles the fate of a `pending` settlement from the chain, the only witness that counts:
 * - the authorization was used → find its transaction, check the transfer, mark succeeded;
 * - unused and expired (it can never be used now) → mark failed, freeing the slot;
 * - otherwise it may still land → leave it pending.
 * Returns the row as it stands afterwards.
 */
export async function reconcileSettlement(db: Db, row: Settlement): Promise<Settlement> {
  if (row.status !== "pending") return row;
  const client = getChainClient();
  const txHash = await findAuthorizationTx(client, {
    asset: getAddress(row.asset),
    authorizer: getAddress(row.payer),
    nonce: row.authorizationNonce as Hex,
  });
  if (txHash) {
    const check = await verifyTransferReceipt(client, {
      txHash,
      asset: getAddress(row.asset),
      from: getAddress(row.payer) as Address,
      to: getAddress(row.payTo) as Address,
      amountAtomic: row.amountAtomic,
      nonce: row.authorizationNonce as Hex,
    });
    if (!check.ok) {
      // The signature fixes payee and amount, so this means a token we do not understand.
      console.error(`Settlement ${row.id}: authorization used by ${txHash} but ${check.reason}`);
      return row;
    }
    return markSettlementSucceeded(db, row.id, txHash);
  }
  const nowSeconds = BigInt(Math.floor(Date.now() / 1000));
  if (row.validBefore <= nowSeconds) {
    return markSettlementFailed(db, row.id, "the authorization expired without being settled");
  }
  return row;
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
    console.error(`Could not reconcile settlement ${row.id}:`, error);
    return row;
  }
}

/** The job's pending-or-succeeded settlement, reconciled first if it is stale (for pages). */
export async function currentSettlementForJob(db: Db, jobId: string): Promise<Settlement | null> {
  return reconcileStalePending(db, await liveSettlementForJob(db, jobId));
}
