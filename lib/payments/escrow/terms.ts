// A protected payment's terms, checked before the operator signs anything: the payload must
// be for exactly the challenge's escrow, operator, fee, receiver, amount and deadlines (a
// client cannot move the receiver, lower the amount, stretch the expiry or name another
// operator), signed by the poster, and its ERC-3009 nonce must be the hash of exactly the
// PaymentInfo we rebuild from it, which is what the operator will authorize. Pure: no
// database, no chain.
import type { PaymentRequirements } from "@x402/core/types";
import { type Address, getAddress } from "viem";
import { checkRole } from "@/lib/kernel/lifecycle";
import { sameAddress } from "@/lib/shared/address";
import type { Refusal } from "../settle/answer";
import type { PaymentHeader } from "../settle/payment-header";
import { MAX_TIMEOUT_SECONDS } from "../settle/requirements";
import { VALIDITY_SLACK_SECONDS } from "../settle/steps/terms";
import { type PaymentInfo, payerAgnosticHash } from "./payment-info";
import type { AuthCaptureExtra } from "./requirements";
import type { EscrowSettings } from "./settings";

const mismatch = (detail: string): Refusal => ({ code: "escrow_terms_mismatch", detail });

/**
 * The PaymentInfo the payload signs, or the refusal that says which term differs from the
 * challenge `required` (built now: its deadlines may be a little later than the ones the
 * client signed a moment ago, never earlier).
 */
export function checkEscrowTerms(
  header: PaymentHeader,
  required: PaymentRequirements,
  settings: EscrowSettings,
  poster: string,
  chainId: number,
  now: number,
): { info: PaymentInfo } | { refusal: Refusal } {
  const refuse = (refusal: Refusal) => ({ refusal });
  const { authorization, payload } = header;
  const accepted = payload.accepted;
  if (accepted.scheme !== required.scheme) {
    return refuse(mismatch("a protected payment uses the auth-capture scheme"));
  }
  if (accepted.network !== required.network) return refuse({ code: "invalid_network" });
  if (!sameAddress(accepted.asset, required.asset)) return refuse({ code: "wrong_asset" });
  if (authorization.value !== required.amount || accepted.amount !== required.amount) {
    return refuse({ code: "invalid_exact_evm_payload_authorization_value_mismatch" });
  }
  if (!sameAddress(accepted.payTo, required.payTo)) {
    return refuse({
      code: "invalid_exact_evm_payload_recipient_mismatch",
      detail: `the receiver is ${required.payTo}`,
    });
  }
  if (!checkRole("pay", { caller: authorization.from, posterAddress: poster }).allowed) {
    return refuse({ code: "wrong_payer" });
  }
  if (!header.salt) return refuse(mismatch("the payload has no salt"));
  if (!sameAddress(authorization.to, settings.collector)) {
    return refuse(mismatch(`the authorization must be to the collector ${settings.collector}`));
  }

  const ours = required.extra as unknown as AuthCaptureExtra;
  const theirs = (accepted.extra ?? {}) as Partial<Record<keyof AuthCaptureExtra, unknown>>;
  const sameAddr = (a: unknown, b: Address) => typeof a === "string" && sameAddress(a, b);
  if (
    theirs.authCaptureEscrow !== undefined &&
    !sameAddr(theirs.authCaptureEscrow, ours.authCaptureEscrow)
  ) {
    return refuse(mismatch(`the escrow is ${ours.authCaptureEscrow}`));
  }
  if (!sameAddr(theirs.captureAuthorizer, ours.captureAuthorizer)) {
    return refuse(mismatch(`the operator is ${ours.captureAuthorizer}`));
  }
  if (!sameAddr(theirs.feeRecipient, ours.feeRecipient)) {
    return refuse(mismatch(`the fee recipient is ${ours.feeRecipient}`));
  }
  if (theirs.minFeeBps !== ours.minFeeBps || theirs.maxFeeBps !== ours.maxFeeBps) {
    return refuse(mismatch(`the fee is ${ours.maxFeeBps} basis points`));
  }
  const captureDeadline = theirs.captureDeadline;
  const refundDeadline = theirs.refundDeadline;
  // Signed at most MAX_TIMEOUT_SECONDS ago (the challenge's life), plus clock slack.
  const earliest = ours.captureDeadline - MAX_TIMEOUT_SECONDS - VALIDITY_SLACK_SECONDS;
  if (
    typeof captureDeadline !== "number" ||
    !Number.isSafeInteger(captureDeadline) ||
    captureDeadline < earliest ||
    captureDeadline > ours.captureDeadline + VALIDITY_SLACK_SECONDS
  ) {
    return refuse(mismatch("the capture deadline is not the challenge's"));
  }
  if (refundDeadline !== captureDeadline + settings.refundSeconds) {
    return refuse(mismatch("the refund deadline is not the challenge's"));
  }

  const validBefore = Number(authorization.validBefore);
  if (validBefore <= now)
    return refuse({ code: "invalid_exact_evm_payload_authorization_valid_before" });
  if (BigInt(authorization.validAfter) > BigInt(now)) {
    return refuse({ code: "invalid_exact_evm_payload_authorization_valid_after" });
  }
  if (validBefore > now + MAX_TIMEOUT_SECONDS + VALIDITY_SLACK_SECONDS) {
    return refuse({
      code: "invalid_exact_evm_payload_authorization_valid_before",
      detail: `valid for too long: at most ${MAX_TIMEOUT_SECONDS} seconds`,
    });
  }

  const info: PaymentInfo = {
    operator: getAddress(ours.captureAuthorizer),
    payer: authorization.from,
    receiver: getAddress(required.payTo),
    token: getAddress(required.asset),
    maxAmount: BigInt(required.amount),
    preApprovalExpiry: validBefore,
    authorizationExpiry: captureDeadline,
    refundExpiry: refundDeadline,
    minFeeBps: ours.minFeeBps,
    maxFeeBps: ours.maxFeeBps,
    feeReceiver: getAddress(ours.feeRecipient),
    salt: BigInt(header.salt),
  };
  if (payerAgnosticHash(info, settings.escrow, chainId) !== authorization.nonce) {
    return refuse(mismatch("the authorization's nonce is not the hash of these terms"));
  }
  return { info };
}
