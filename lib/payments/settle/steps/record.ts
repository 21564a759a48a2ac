// Step 8, record: the claim notes what the facilitator said, the chain decides the outcome,
// and the claiming request lets go of the row (the reconciler may resubmit it from now on).

import "server-only";
import type { Hex } from "viem";
import type { Db } from "@/lib/db";
import type { Settlement } from "@/lib/generated/prisma/client";
import { verifyTransferReceipt } from "../../chain/verify-receipt";
import { transferRecipientOf } from "../../escrow/escrow-terms";
import {
  endInFlight,
  markSettlementSucceeded,
  notePendingSettlement,
} from "../../ledger/settlements";
import { failedResponse, refused, type Resolution } from "../answer";
import { refusalCodeFor, refusalMessage } from "../outcomes";
import { reconcileQuietly } from "./replay";
import type { Submitted } from "./submit";

export async function recordAttempt(
  db: Db,
  claim: Settlement,
  submitted: Submitted,
): Promise<Resolution> {
  if (submitted.note) {
    console.warn(`Settlement ${claim.id}: the facilitator did not confirm (${submitted.note})`);
  }
  const transferred = await shownByReceipt(claim, submitted);
  if (transferred) {
    // One write: succeeded with its hash, its event, and the request's hold let go.
    const row = await markSettlementSucceeded(db, claim.id, transferred);
    if (row.status === "succeeded") return { kind: "settled", row };
  }
  let row = await notePendingSettlement(db, claim.id, {
    error: submitted.note,
    txHash: submitted.response?.transaction || undefined,
  });
  row = await reconcileQuietly(db, row);
  await endInFlight(db, claim.id);
  if (row.status === "succeeded") return { kind: "settled", row };
  if (row.status === "pending") return { kind: "pending", row };
  const reason = submitted.response?.errorReason;
  return refused({
    code: "settlement_failed",
    detail: reason ? refusalMessage(refusalCodeFor(reason)) : undefined,
    response: failedResponse(row),
  });
}

/**
 * The transaction's hash when the receipt already in hand shows this authorization's transfer
 * (the token's AuthorizationUsed for the payer's nonce, and exactly the amount from the payer
 * to the recipient, as the reconciler checks it): the chain's word without asking it again.
 * Anything else (no receipt, a revert, a receipt that disagrees) goes the long way, through
 * the reconciler's reading of the chain.
 */
async function shownByReceipt(claim: Settlement, submitted: Submitted): Promise<Hex | undefined> {
  const { receipt } = submitted;
  if (!receipt || !submitted.response?.success) return undefined;
  const txHash = receipt.transactionHash;
  if (txHash.toLowerCase() !== submitted.response.transaction.toLowerCase()) return undefined;
  const check = await verifyTransferReceipt(
    { getTransactionReceipt: async () => receipt },
    {
      txHash,
      asset: claim.asset as Hex,
      from: claim.payer as Hex,
      to: transferRecipientOf(claim),
      amountAtomic: claim.amountAtomic,
      nonce: claim.authorizationNonce as Hex,
    },
  );
  return check.ok ? txHash : undefined;
}
