// The x402 PaymentRequirements of a bid, built from our own records every time: payee and
// amount from the database, asset and EIP-712 domain from the configured network.
import type { PaymentRequirements } from "@x402/core/types";
import type { Address } from "viem";
import { DomainError } from "@/lib/platform/errors";
import { getSettlementNetwork } from "../chain/network";
import { getResourceServer } from "./resource-server";

/** How long a signed authorization may be valid: bounds how long a slot can stay pending. */
export const MAX_TIMEOUT_SECONDS = 300;

export async function paymentRequirementsFor(terms: {
  payTo: Address;
  amountAtomic: bigint;
}): Promise<PaymentRequirements> {
  const network = getSettlementNetwork();
  const server = await resourceServerOrUnavailable();
  const [requirements] = await server.buildPaymentRequirements({
    scheme: "exact",
    network: network.network,
    payTo: terms.payTo,
    price: {
      asset: network.asset,
      amount: terms.amountAtomic.toString(),
      extra: { ...network.eip712Domain },
    },
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
  });
  if (!requirements) throw new Error("the x402 resource server built no payment requirements");
  return requirements;
}

/** The resource server, or a 503 when its facilitator cannot be reached (nothing charged). */
export async function resourceServerOrUnavailable() {
  try {
    return await getResourceServer();
  } catch (error) {
    console.error("x402 facilitator unreachable:", error);
    throw facilitatorUnavailable();
  }
}

export const facilitatorUnavailable = () =>
  new DomainError(
    "unavailable",
    "the payment facilitator is not answering; nothing was charged, retry shortly",
    { "Retry-After": "5" },
    "facilitator_unavailable",
  );
