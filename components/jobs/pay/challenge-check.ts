// What the pay dialog checks in a 402 challenge before anything is signed, for both ways of
// paying: the bid, to the agent's payee, in our USDC on our network; for a protected payment
// also our escrow contract, our operator, sane deadlines and fee, and the token's own EIP-712
// domain. Pure: no React, no wallet, no HTTP (tests/http/pay-challenge.test.ts runs it on the
// server's real challenges).
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { sameAddress } from "@/lib/shared/address";
import { usdcToAtomic } from "@/lib/shared/money";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";

/** now: the agent is paid at once (x402 `exact`); escrow: protected (x402 `auth-capture`). */
export type PayMode = "now" | "escrow";

export const SCHEME_OF: Record<PayMode, string> = { now: "exact", escrow: "auth-capture" };

/** The terms of a protected payment, as the dialog shows them (unix seconds, basis points). */
export interface EscrowTerms {
  escrow: string;
  operator: string;
  /**
   * From then on the poster may cancel an undelivered job and get the money back, and nothing
   * can be delivered: the deadline the payment keeps, however late the accept
   * (lib/marketplace/transitions.ts).
   */
  deliverBy: number;
  /** The authorization's expiry: nothing is released after it; the payer may reclaim. */
  heldUntil: number;
  /** Until then a released payment could still be refunded by the operator. */
  refundUntil: number;
  /** The most the platform's fee may take of the released amount. */
  maxFeeBps: number;
}

/** What the dialog needs of the challenge: the bid and the wallet it pays. */
export interface ChallengeTarget {
  bidUsdc: number;
  payeeWallet: string;
}

type Config = Pick<
  PublicPaymentConfig,
  "network" | "asset" | "tokenName" | "tokenVersion" | "escrow"
>;

/** The offer of this mode's scheme on our network, if the challenge has one. */
export function pickRequirement(
  paymentRequired: PaymentRequired,
  payment: Pick<PublicPaymentConfig, "network">,
  mode: PayMode,
): PaymentRequirements | undefined {
  return paymentRequired.accepts.find(
    (accept) => accept.scheme === SCHEME_OF[mode] && accept.network === payment.network,
  );
}

const isAddressText = (value: unknown): value is string =>
  typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value);
const isSeconds = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0;
const isBps = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 10_000;

/**
 * The fields of `requirement` that differ from what the page shows (empty: sign it).
 * `nowSeconds` is the browser's clock: a protected payment whose hold would already have
 * expired is refused.
 */
export function challengeMismatches(
  requirement: PaymentRequirements,
  target: ChallengeTarget,
  payment: Config,
  mode: PayMode,
  nowSeconds: number,
): string[] {
  const fields = [
    requirement.scheme !== SCHEME_OF[mode] && "scheme",
    requirement.network !== payment.network && "network",
    !amountIs(requirement.amount, target.bidUsdc) && "amount",
    !sameAddress(requirement.payTo, target.payeeWallet) && "payee",
    !sameAddress(requirement.asset, payment.asset) && "token",
  ];
  if (mode === "escrow") fields.push(...escrowMismatches(requirement, payment, nowSeconds));
  return fields.filter((field): field is string => Boolean(field));
}

function amountIs(amount: string, bidUsdc: number): boolean {
  try {
    return BigInt(amount) === usdcToAtomic(bidUsdc);
  } catch {
    return false;
  }
}

function escrowMismatches(
  requirement: PaymentRequirements,
  payment: Config,
  nowSeconds: number,
): (string | false)[] {
  const extra = requirement.extra ?? {};
  const ours = payment.escrow;
  const { captureDeadline, refundDeadline, minFeeBps, maxFeeBps } = extra;
  return [
    // Protected payments are off here: nothing to sign them against.
    !ours && "escrow",
    (!isAddressText(extra.authCaptureEscrow) ||
      (ours !== null && !sameAddress(extra.authCaptureEscrow, ours.address))) &&
      "escrow contract",
    (!isAddressText(extra.captureAuthorizer) ||
      (ours !== null && !sameAddress(extra.captureAuthorizer, ours.operator))) &&
      "operator",
    !isAddressText(extra.feeRecipient) && "fee recipient",
    !(isBps(minFeeBps) && isBps(maxFeeBps) && minFeeBps <= maxFeeBps) && "fee",
    !(
      isSeconds(captureDeadline) &&
      isSeconds(refundDeadline) &&
      captureDeadline > nowSeconds &&
      refundDeadline >= captureDeadline
    ) && "deadlines",
    (extra.name !== payment.tokenName || extra.version !== payment.tokenVersion) && "token domain",
    // The ERC-3009 authorization only: Permit2 would need an approval the poster never gave.
    extra.assetTransferMethod !== undefined &&
      extra.assetTransferMethod !== "eip3009" &&
      "transfer method",
  ];
}

/**
 * The deadlines and fee of a checked auth-capture requirement. The delivery deadline is the
 * hold's expiry less the review and dispute windows, as the server derives it when it holds
 * the payment.
 */
export function escrowTermsOf(
  requirement: PaymentRequirements,
  escrow: NonNullable<PublicPaymentConfig["escrow"]>,
): EscrowTerms {
  const extra = requirement.extra as {
    authCaptureEscrow: string;
    captureAuthorizer: string;
    captureDeadline: number;
    refundDeadline: number;
    maxFeeBps: number;
  };
  return {
    escrow: extra.authCaptureEscrow,
    operator: extra.captureAuthorizer,
    deliverBy: extra.captureDeadline - escrow.reviewSeconds - escrow.disputeSeconds,
    heldUntil: extra.captureDeadline,
    refundUntil: extra.refundDeadline,
    maxFeeBps: extra.maxFeeBps,
  };
}
