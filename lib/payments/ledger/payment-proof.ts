import { getAddress, type Hex } from "viem";
import type { Db } from "@/lib/db";
import { paymentRequired } from "@/lib/platform/errors";
import type { Settlement } from "@/lib/generated/prisma/client";
import { sameAddress } from "@/lib/shared/address";
import { getChainClient } from "../chain/client";
import { getSettlementNetwork } from "../chain/network";
import { reconcileStalePending } from "../reconcile/settlement";
import { findSucceededSettlement, liveSettlementForJob } from "./settlements";
import { verifyTransferReceipt } from "../chain/verify-receipt";
import { transferRecipientOf } from "../escrow/escrow-terms";

const PAY_FIRST = "pay through POST /api/jobs/:id/settle?proposalId=... first";

/**
 * Accept's payment check: `txHash` must be a succeeded settlement recorded by this server
 * for exactly this job and proposal, on the configured network and asset, paid by the poster
 * to the payee the bid was made with (the proposal's, not the agent's current wallet), for the
 * bid, and, where the chain answers, a receipt whose AuthorizationUsed log is this
 * settlement's authorization and whose Transfer log says the same. Each refusal says which of
 * these failed (402).
 */
export async function assertPaidFor(
  db: Db,
  facts: {
    job: { id: string; posterAddress: string };
    proposal: { id: string; bidAtomic: bigint; payeeAddress: string };
    txHash: string;
  },
): Promise<Settlement> {
  const where = { jobId: facts.job.id, proposalId: facts.proposal.id, txHash: facts.txHash };
  let settlement = await findSucceededSettlement(db, where);
  if (!settlement) {
    // A payment whose record a crash cut short is recovered from the chain first.
    await reconcileStalePending(db, await liveSettlementForJob(db, facts.job.id), { force: true });
    settlement = await findSucceededSettlement(db, where);
  }
  if (!settlement) {
    throw paymentRequired(
      "payment_not_found",
      `txHash is not a successful settlement of this job and proposal; ${PAY_FIRST}`,
    );
  }
  const mismatch = ledgerMismatch(settlement, facts);
  if (mismatch)
    throw paymentRequired(
      "payment_mismatch",
      `the settlement does not pay for this bid: ${mismatch}`,
    );
  await assertReceiptMatches(settlement);
  return settlement;
}

function ledgerMismatch(
  settlement: Settlement,
  facts: {
    job: { posterAddress: string };
    proposal: { bidAtomic: bigint; payeeAddress: string };
  },
): string | undefined {
  const same = sameAddress;
  const network = getSettlementNetwork();
  // mutant: accept-the-configured-network
  if (settlement.network !== network.network) return `it was made on ${settlement.network}`;
  // mutant end
  // mutant: accept-the-configured-asset
  if (!same(settlement.asset, network.asset)) return `it paid in ${settlement.asset}, not USDC`;
  // mutant end
  // mutant: accept-paid-by-the-poster
  if (!same(settlement.payer, facts.job.posterAddress)) return "it was not paid by the poster";
  // mutant end
  // mutant: accept-paid-to-the-wallet-the-bid-was-made-with
  if (!same(settlement.payTo, facts.proposal.payeeAddress)) {
    return "it was not paid to the wallet the bid was made with";
  }
  // mutant end
  // mutant: accept-the-bid-s-amount
  if (settlement.amountAtomic !== facts.proposal.bidAtomic) return "its amount is not the bid";
  // mutant end
  return undefined;
}

async function assertReceiptMatches(settlement: Settlement) {
  let check;
  try {
    check = await verifyTransferReceipt(getChainClient(), {
      txHash: settlement.txHash as Hex,
      asset: getAddress(settlement.asset),
      from: getAddress(settlement.payer),
      // A protected payment's transfer goes into the escrow (its collector), held for payTo.
      to: transferRecipientOf(settlement),
      amountAtomic: settlement.amountAtomic,
      // This settlement's own authorization: another payment with the same payer, payee and
      // amount is not this one.
      // mutant: accept-the-receipt-is-this-settlement-s-authorization
      nonce: settlement.authorizationNonce as Hex,
      // mutant end
    });
  } catch {
    // The chain is unreachable: our own ledger row is the proof.
    console.warn(`Accept: receipt check skipped for ${settlement.txHash}: chain unreachable`);
    return;
  }
  // mutant: accept-the-chain-s-receipt-agrees-with-the-ledger
  if (!check.ok) {
    throw paymentRequired(
      "payment_mismatch",
      `the chain's receipt does not show this payment: ${check.reason}`,
    );
  }
  // mutant end
}
