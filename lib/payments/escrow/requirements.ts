// The x402 `auth-capture` PaymentRequirements of a protected payment, from our own records:
// amount and receiver from the proposal, asset and EIP-712 domain from the network, escrow,
// operator (captureAuthorizer), fee and deadlines from the escrow settings. Deadlines are set
// on the chain's clock (its latest block), as the contract checks them.
import type { PaymentRequirements } from "@x402/core/types";
import type { Address } from "viem";
import { DomainError } from "@/lib/platform/errors";
import { getChainClient } from "../chain/client";
import { getSettlementNetwork } from "../chain/network";
import { MAX_TIMEOUT_SECONDS } from "../settle/requirements";
import { type EscrowSettings, getEscrowSettings } from "./settings";

export const AUTH_CAPTURE_SCHEME = "auth-capture";

/** The `extra` of an auth-capture requirement (the x402 spec's fields, and the token's domain). */
export interface AuthCaptureExtra {
  name: string;
  version: string;
  authCaptureEscrow: Address;
  captureAuthorizer: Address;
  captureDeadline: number;
  refundDeadline: number;
  feeRecipient: Address;
  minFeeBps: number;
  maxFeeBps: number;
}

/** The windows of one protected payment, from `now` (chain seconds). */
export function escrowDeadlines(settings: EscrowSettings, now: number, etaDays: number) {
  const deliverBy = now + etaDays * 86_400 + settings.graceSeconds;
  const captureDeadline = deliverBy + settings.reviewSeconds + settings.disputeSeconds;
  return { deliverBy, captureDeadline, refundDeadline: captureDeadline + settings.refundSeconds };
}

/** What a held payment's capture deadline says about when delivery was due. */
export const deliverByOf = (settings: EscrowSettings, captureDeadline: number) =>
  captureDeadline - settings.reviewSeconds - settings.disputeSeconds;

export function escrowSettingsOrUnavailable(): EscrowSettings {
  const settings = getEscrowSettings();
  if (!settings) {
    throw new DomainError(
      "unavailable",
      "protected payments are not configured on this server (no escrow operator); pay now instead",
      {},
      "protected_payments_unavailable",
    );
  }
  return settings;
}

export async function chainNowSeconds(): Promise<number> {
  try {
    return Number((await getChainClient().getBlock({ blockTag: "latest" })).timestamp);
  } catch {
    throw new DomainError(
      "unavailable",
      "the chain is not answering; nothing was charged, retry shortly",
      { "Retry-After": "5" },
      "chain_unavailable",
    );
  }
}

export function escrowRequirementsFor(
  settings: EscrowSettings,
  terms: { payTo: Address; amountAtomic: bigint; etaDays: number; now: number },
): PaymentRequirements {
  const network = getSettlementNetwork();
  const { captureDeadline, refundDeadline } = escrowDeadlines(settings, terms.now, terms.etaDays);
  const extra: AuthCaptureExtra = {
    ...network.eip712Domain,
    authCaptureEscrow: settings.escrow,
    captureAuthorizer: settings.operator,
    captureDeadline,
    refundDeadline,
    feeRecipient: settings.feeReceiver,
    minFeeBps: settings.feeBps,
    maxFeeBps: settings.feeBps,
  };
  return {
    scheme: AUTH_CAPTURE_SCHEME,
    network: network.network,
    asset: network.asset,
    amount: terms.amountAtomic.toString(),
    payTo: terms.payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: extra as unknown as Record<string, unknown>,
  };
}
