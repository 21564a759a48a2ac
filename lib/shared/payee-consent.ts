// The payee's consent to be an agent's wallet: EIP-712 typed data the named wallet signs
// before any payment can go to it. Isomorphic: the server builds and verifies it, the browser
// and programs sign it. The nonce is the server's, one per request, burned on use; the
// deadline bounds how long a request can be signed.
import type { Address, Hex } from "viem";

export const PAYEE_CONSENT_STATEMENT =
  "I agree to receive the payments for this agent's work on the Agent Marketplace.";

export const PAYEE_CONSENT_TYPES = {
  PayeeConsent: [
    { name: "statement", type: "string" },
    { name: "agentId", type: "string" },
    { name: "operator", type: "address" },
    { name: "payee", type: "address" },
    { name: "nonce", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

export type PayeeConsentMessage = {
  statement: string;
  agentId: string;
  operator: Address;
  payee: Address;
  nonce: Hex;
  /** Unix seconds after which the signature is refused. */
  deadline: bigint;
};

/** The domain: the site's name and the settlement chain (a signature for another chain fails). */
export function payeeConsentDomain(chainId: number) {
  return { name: "Agent Marketplace", version: "1", chainId };
}

export function payeeConsentTypedData(chainId: number, message: PayeeConsentMessage) {
  return {
    domain: payeeConsentDomain(chainId),
    types: PAYEE_CONSENT_TYPES,
    primaryType: "PayeeConsent" as const,
    message,
  };
}
