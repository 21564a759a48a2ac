import { randomBytes } from "node:crypto";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { createPublicClient, getAddress, http, type LocalAccount, toHex } from "viem";
import { testUsdcAbi, transferWithAuthorizationTypes } from "@/dev/contracts";
import type { EvmAuthorization as Authorization } from "@/lib/payments/settle/payment-header";
import { LOCAL_CHAIN_ID, LOCAL_NETWORK, LOCAL_TOKEN_ADDRESS } from "@/dev/local-chain";
import { type PaymentLimits, x402PayingFetch } from "@agent-marketplace/client";

/** A payer as the README shows one: the typed client's paying fetch, limited to our token. */
export function payingFetch(account: LocalAccount, baseFetch: typeof fetch = fetch) {
  return x402PayingFetch(account, LOCAL_PAYMENT_LIMITS, baseFetch);
}

export const LOCAL_PAYMENT_LIMITS: PaymentLimits = {
  network: LOCAL_NETWORK,
  asset: LOCAL_TOKEN_ADDRESS,
  maxUsdc: 1_000_000,
};

/**
 * Pays `url` as docs/payments.md tells a payer to: on `409 settlement_pending` (sent, not yet
 * confirmed) or a 503 (busy or unavailable, nothing charged), wait and send the same
 * PAYMENT-SIGNATURE again (never a new one) until the chain decides. Returns the final answer
 * and how many such answers came before it.
 */
export async function payWaitingOnPending(account: LocalAccount, url: string) {
  let signature: string | null = null;
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    signature = request.headers.get("payment-signature") ?? signature;
    return fetch(request);
  };
  let response = await payingFetch(account, recording)(url, { method: "POST" });
  let body = await response.json();
  let pending = 0;
  const retrySame = () =>
    (response.status === 409 && body.code === "settlement_pending") || response.status === 503;
  while (retrySame() && signature && pending < 60) {
    pending += 1;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    response = await fetch(url, { method: "POST", headers: { "PAYMENT-SIGNATURE": signature } });
    body = await response.json();
  }
  return { status: response.status, body, pending };
}

export async function fetchChallenge(
  url: string,
): Promise<{ status: number; body: any; paymentRequired: PaymentRequired }> {
  const response = await fetch(url, { method: "POST" });
  const header = response.headers.get("payment-required");
  return {
    status: response.status,
    body: await response.json(),
    paymentRequired: header ? decodePaymentRequiredHeader(header) : (undefined as never),
  };
}

/**
 * Signs an EIP-3009 authorization for the challenge by hand, so tests can break it on
 * purpose: `signed` changes the terms that are signed, `sent` the terms that are sent.
 */
export async function signPaymentHeader(
  account: LocalAccount,
  paymentRequired: PaymentRequired,
  options: {
    signed?: Partial<Authorization>;
    sent?: Partial<Authorization>;
    accepted?: Record<string, unknown>;
  } = {},
): Promise<string> {
  const requirements = paymentRequired.accepts[0]!;
  const now = Math.floor(Date.now() / 1000);
  const base: Authorization = {
    from: account.address,
    to: getAddress(requirements.payTo),
    value: requirements.amount,
    validAfter: "0",
    validBefore: String(now + requirements.maxTimeoutSeconds),
    nonce: toHex(randomBytes(32)),
  };
  const signed = { ...base, ...options.signed };
  const extra = requirements.extra as { name: string; version: string };
  const signature = await account.signTypedData({
    domain: {
      name: extra.name,
      version: extra.version,
      chainId: LOCAL_CHAIN_ID,
      verifyingContract: getAddress(requirements.asset),
    },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      from: getAddress(signed.from),
      to: getAddress(signed.to),
      value: BigInt(signed.value),
      validAfter: BigInt(signed.validAfter),
      validBefore: BigInt(signed.validBefore),
      nonce: signed.nonce as `0x${string}`,
    },
  });
  return encodePaymentSignatureHeader({
    x402Version: 2,
    resource: paymentRequired.resource,
    accepted: { ...requirements, ...options.accepted },
    payload: { authorization: { ...signed, ...options.sent }, signature },
  });
}

export function tokenReader(rpcUrl: string) {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return {
    balanceOf: (address: string) =>
      client.readContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "balanceOf",
        args: [getAddress(address)],
      }) as Promise<bigint>,
    transfersTo: async (address: string) =>
      (
        await client.getContractEvents({
          address: LOCAL_TOKEN_ADDRESS,
          abi: testUsdcAbi,
          eventName: "Transfer",
          args: { to: getAddress(address) },
          fromBlock: 0n,
        })
      ).length,
    authorizationTx: async (authorizer: string) =>
      (
        await client.getContractEvents({
          address: LOCAL_TOKEN_ADDRESS,
          abi: testUsdcAbi,
          eventName: "AuthorizationUsed",
          args: { authorizer: getAddress(authorizer) },
          fromBlock: 0n,
        })
      ).map((log) => log.transactionHash),
  };
}
