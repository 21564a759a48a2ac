// Paying protected (issue 25) over HTTP as a poster's own code would: the 402 challenge read
// first, the payment signed with the published x402 auth-capture client (@x402/evm), sent back
// to the settle URL. And where the escrow keeps what it holds for our operator.
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import type { Address, LocalAccount, PublicClient } from "viem";
import { expect } from "vitest";
import { authCaptureEscrowAbi, LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS } from "@/dev/escrow";
import { LOCAL_ESCROW_OPERATOR_ADDRESS } from "@/dev/local-chain";
import { fetchChallenge } from "./x402";

/**
 * Pays the settle URL (with `&mode=escrow`) protected; `tamper` changes the challenge's terms
 * before signing, as a hostile client would. Answers the server's status and body.
 */
export async function payProtected(
  payer: LocalAccount,
  url: string,
  tamper: (requirements: PaymentRequirements) => PaymentRequirements = (r) => r,
) {
  const challenge = await fetchChallenge(url);
  expect(challenge.status).toBe(402);
  const offered = challenge.paymentRequired.accepts[0]!;
  const requirements = tamper(structuredClone(offered));
  const { payload } = await new AuthCaptureEvmScheme(payer).createPaymentPayload(2, requirements);
  const paymentPayload: PaymentPayload = {
    x402Version: 2,
    resource: challenge.paymentRequired.resource,
    accepted: requirements,
    payload,
  };
  const response = await fetch(url, {
    method: "POST",
    headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(paymentPayload) },
  });
  return { status: response.status, body: await response.json(), offered };
}

/** The operator's token store: the escrow holds its payments there. */
export function operatorStoreAddress(publicClient: PublicClient): Promise<Address> {
  return publicClient.readContract({
    address: LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
    abi: authCaptureEscrowAbi,
    functionName: "getTokenStore",
    args: [LOCAL_ESCROW_OPERATOR_ADDRESS],
  });
}
