// Paying a proposal's bid through x402 (@x402/fetch): the 402 challenge names the amount,
// the agent and the token; the payer signs an EIP-3009 authorization within its own limits.
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { AuthCaptureEvmScheme } from "@x402/evm-authcapture/auth-capture/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { LocalAccount } from "viem";
import { usdcToAtomic } from "@/lib/shared/money";
import type { MarketplaceClient } from "./core";

/** What the payer agrees to pay with: one network and token, and a ceiling per payment. */
export interface PaymentLimits {
  /** CAIP-2: "eip155:8453" (Base) or "eip155:31337" (the local chain). */
  network: `${string}:${string}`;
  /** The USDC token address on that network. */
  asset: string;
  /** The most this fetch will pay for one request, in USDC. */
  maxUsdc: number;
}

/**
 * A fetch that answers 402 challenges by paying within `limits`, signed by `account`: the
 * `exact` scheme (pay now) and x402's `auth-capture` (a protected payment, held in escrow).
 */
export function x402PayingFetch(
  account: LocalAccount,
  limits: PaymentLimits,
  baseFetch: typeof fetch = fetch,
): typeof fetch {
  return wrapFetchWithPayment(
    baseFetch,
    x402Client.fromConfig({
      schemes: [
        { network: limits.network, client: new ExactEvmScheme(account) },
        { network: limits.network, client: new AuthCaptureEvmScheme(account) },
      ],
      spendControls: {
        allowedAssets: [
          {
            network: limits.network,
            asset: limits.asset,
            maxAmountPerPayment: usdcToAtomic(limits.maxUsdc).toString(),
          },
        ],
      },
    }),
  );
}

/** The terms of a bid's payment, from its 402 challenge: what the payer is asked to sign. */
export async function paymentTerms(
  client: MarketplaceClient,
  ids: { jobId: string; proposalId: string },
) {
  const challenge = await client.POST("/api/jobs/{id}/settle", {
    params: { path: { id: ids.jobId }, query: { proposalId: ids.proposalId } },
  });
  const header = challenge.response.headers.get("payment-required");
  if (challenge.response.status !== 402 || !header) {
    throw new Error(
      `expected the 402 challenge, got ${challenge.response.status}: ${challenge.error?.error}`,
    );
  }
  const accepted = decodePaymentRequiredHeader(header).accepts[0]!;
  return {
    network: accepted.network,
    asset: accepted.asset,
    amountUsdc: Number(accepted.amount) / 1e6,
    payTo: accepted.payTo,
  };
}

/**
 * Pays proposal `proposalId` of job `jobId` and returns the settlement (accept with its
 * txHash). On 409 settlement_pending it waits and sends the same signature again, as
 * docs/payments.md says a client should.
 */
export async function payProposal(
  client: MarketplaceClient,
  account: LocalAccount,
  limits: PaymentLimits,
  ids: { jobId: string; proposalId: string },
  options: {
    pendingRetries?: number;
    retryDelayMs?: number;
    /** `escrow`: a protected payment, held until the job is completed (docs/payments.md). */
    mode?: "now" | "escrow";
  } = {},
) {
  let signature: string | null = null;
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    signature = request.headers.get("payment-signature") ?? signature;
    return fetch(request);
  };
  const paying = x402PayingFetch(account, limits, recording);
  const params = {
    path: { id: ids.jobId },
    query: { proposalId: ids.proposalId, mode: options.mode ?? "now" },
  };
  let result = await client.POST("/api/jobs/{id}/settle", { params, fetch: paying });
  for (let attempt = 0; attempt < (options.pendingRetries ?? 60); attempt++) {
    const pending = result.response.status === 409 && result.error?.code === "settlement_pending";
    if (!pending || !signature) break;
    await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 1_000));
    result = await client.POST("/api/jobs/{id}/settle", {
      params: { ...params, header: { "payment-signature": signature } },
    });
  }
  if (!result.data) {
    const { error } = result;
    throw new Error(
      `payment refused (${result.response.status}${error?.code ? ` ${error.code}` : ""}): ${error?.error}`,
    );
  }
  return result.data.data;
}
