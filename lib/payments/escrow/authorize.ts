// The protected-payment steps of the settle pipeline (lib/payments/settle/settle.ts, mode
// `escrow`): the auth-capture challenge, the checks before the operator signs anything (the
// terms, the signature, and the authorize call run against the chain's state), and the
// operator's `authorize` itself, its hash in the ledger before the broadcast. Everything
// after (record, reconcile, replay) is the settlement ledger's, as for pay-now.
import "server-only";
import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Address } from "viem";
import type { Db } from "@/lib/db";
import type { Prisma, Settlement } from "@/lib/generated/prisma/client";
import { errorSummary } from "@/lib/platform/redact";
import { getSettlementNetwork } from "../chain/network";
import { receiveWithAuthorizationTypes } from "../chain/usdc-abi";
import { TransactionRejectedError } from "../facilitator/sender";
import { recordSettlementTxHash } from "../ledger/settlements";
import type { Refusal } from "../settle/answer";
import type { PaymentHeader } from "../settle/payment-header";
import type { Submitted } from "../settle/steps/submit";
import { checkSignature } from "../settle/steps/terms";
import { type EscrowTerms, storeEscrowTerms } from "./escrow-terms";
import { receiptWithin, sendOperatorCall, simulateOperatorCall } from "./operator";
import type { PaymentInfo } from "./payment-info";
import {
  chainNowSeconds,
  deliverByOf,
  escrowRequirementsFor,
  escrowSettingsOrUnavailable,
} from "./requirements";
import type { EscrowSettings } from "./settings";
import { checkEscrowTerms } from "./terms";

export interface ProtectedPayment {
  settings: EscrowSettings;
  required: PaymentRequirements;
  now: number;
}

export async function protectedPaymentFor(terms: {
  payTo: Address;
  amountAtomic: bigint;
  etaDays: number;
}): Promise<ProtectedPayment> {
  const settings = escrowSettingsOrUnavailable();
  const now = await chainNowSeconds();
  return { settings, now, required: escrowRequirementsFor(settings, { ...terms, now }) };
}

/** The escrow's custom errors that say the payer's side is wrong → our refusal codes. */
const REVERTS: Record<string, Refusal["code"]> = {
  AfterPreApprovalExpiry: "invalid_exact_evm_payload_authorization_valid_before",
  PaymentAlreadyCollected: "authorization_already_used",
  ExceedsMaxAmount: "escrow_terms_mismatch",
  InvalidExpiries: "escrow_terms_mismatch",
  InvalidSender: "escrow_terms_mismatch",
};

function refusalForRevert(reason: string): Refusal {
  const known = REVERTS[reason];
  if (known) return { code: known, detail: reason };
  if (/exceeds balance|insufficient/i.test(reason)) return { code: "insufficient_funds" };
  if (/authorization is used|used or canceled|invalid signature|signature/i.test(reason)) {
    return /used/i.test(reason)
      ? { code: "authorization_already_used" }
      : { code: "invalid_exact_evm_payload_signature" };
  }
  return { code: "payment_refused", detail: reason };
}

/**
 * Every check before the operator's key signs: the terms (pure), the signature, and the very
 * authorize call run against the chain (balance, expiry, a used authorization).
 */
export async function checkProtectedPayment(
  payment: ProtectedPayment,
  header: PaymentHeader,
  poster: string,
): Promise<{ terms: EscrowTerms } | { refusal: Refusal }> {
  const { settings, required, now } = payment;
  const checked = checkEscrowTerms(
    header,
    required,
    settings,
    poster,
    getSettlementNetwork().chain.id,
    now,
  );
  if ("refusal" in checked) return checked;
  const badSignature = await checkSignature(header, required, receiveWithAuthorizationTypes);
  if (badSignature) return { refusal: badSignature };
  const reverted = await simulateOperatorCall(
    settings,
    authorizeCall(settings, checked.info, header),
  );
  if (reverted) return { refusal: refusalForRevert(reverted) };
  return {
    terms: {
      paymentInfo: checked.info,
      escrow: settings.escrow,
      collector: settings.collector,
      deliverBy: deliverByOf(settings, checked.info.authorizationExpiry),
    },
  };
}

export const escrowClaimFields = (terms: EscrowTerms) => ({
  scheme: "auth_capture" as const,
  escrowTerms: storeEscrowTerms(terms) as unknown as Prisma.InputJsonValue,
});

const authorizeCall = (
  settings: EscrowSettings,
  info: PaymentInfo,
  header: { signature: `0x${string}` },
) => ({
  kind: "authorize" as const,
  info,
  amount: info.maxAmount,
  collector: settings.collector,
  signature: header.signature,
});

/**
 * The operator authorizes: the payer's USDC moves into escrow. The hash is in the ledger
 * before the broadcast; the receipt is awaited up to the confirmation timeout, after which the
 * chain (through the reconciler) decides, as for pay-now.
 */
export async function submitAuthorize(
  db: Db,
  claim: Settlement,
  terms: EscrowTerms,
  signature: `0x${string}`,
): Promise<Submitted> {
  const settings = escrowSettingsOrUnavailable();
  const network = getSettlementNetwork();
  let hash;
  try {
    hash = await sendOperatorCall(
      settings,
      authorizeCall(settings, terms.paymentInfo, { signature }),
      ({ hash, from, nonce }) =>
        recordSettlementTxHash(
          db,
          { payer: claim.payer, authorizationNonce: claim.authorizationNonce },
          hash,
          { address: from, nonce },
        ),
    );
  } catch (error) {
    const note =
      error instanceof TransactionRejectedError
        ? `authorize refused: ${error.message}`
        : errorSummary(error);
    return { note };
  }
  let receipt;
  try {
    receipt = await receiptWithin(hash);
  } catch (error) {
    return {
      note: errorSummary(error),
      response: pendingResponse(hash, network.network, claim.payer),
    };
  }
  if (!receipt)
    return {
      note: "no receipt yet",
      response: pendingResponse(hash, network.network, claim.payer),
    };
  if (receipt.status !== "success") {
    return {
      note: "authorize reverted",
      response: {
        success: false,
        errorReason: "settlement_failed",
        transaction: hash,
        network: network.network,
        payer: claim.payer,
      },
    };
  }
  return {
    response: { success: true, transaction: hash, network: network.network, payer: claim.payer },
    receipt,
  };
}

const pendingResponse = (
  hash: string,
  network: SettleResponse["network"],
  payer: string,
): SettleResponse => ({
  success: false,
  errorReason: "settlement_pending",
  transaction: hash,
  network,
  payer,
});
