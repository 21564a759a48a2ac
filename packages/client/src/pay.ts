// Paying a proposal's bid through x402: the 402 challenge names the amount, the agent's payee,
// the token and the network; the payer signs an EIP-3009 authorization for exactly that and
// nothing wider. Pay now (`exact`) or protected (`auth-capture`: held in escrow until the job
// is completed, docs/payments.md).
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { ClientEvmSigner } from "@x402/evm";
import type { MarketplaceClient } from "./core";
import { errorOf } from "./errors";
import { USDC_BY_NETWORK, atomicToUsdc, usdcToAtomic } from "./money";

export type PaymentMode = "now" | "escrow";

export interface ProposalIds {
  jobId: string;
  proposalId: string;
}

/** Thrown before anything is signed: the challenge asks for what the payer did not agree to. */
export class PaymentTermsError extends Error {
  override readonly name = "PaymentTermsError";
}

/**
 * x402's spend controls for one challenge, once checkChallenge has accepted it: its own network
 * and token, at most its own amount. An x402 client refuses any asset it was not told about
 * (only its default assets, up to 1 USDC each); this allows exactly what was checked.
 */
export function spendControlsFor(requirements: readonly PaymentRequirements[]) {
  return {
    allowedAssets: requirements.map((r) => ({
      network: r.network,
      asset: r.asset,
      maxAmountPerPayment: r.amount,
    })),
  };
}

/** The bid's 402 challenge (POST …/settle without a signature), decoded. */
export async function readChallenge(
  client: MarketplaceClient,
  ids: ProposalIds,
  mode: PaymentMode = "now",
): Promise<PaymentRequired> {
  const challenge = await client.POST("/api/jobs/{id}/settle", {
    params: { path: { id: ids.jobId }, query: { proposalId: ids.proposalId, mode } },
  });
  if (challenge.response.status !== 402) throw errorOf(challenge);
  const http = new x402HTTPClient(new x402Client());
  return http.getPaymentRequiredResponse((name) => challenge.response.headers.get(name));
}

/** The terms of a bid's payment, from its 402 challenge: what the payer is asked to sign. */
export async function paymentTerms(
  client: MarketplaceClient,
  ids: ProposalIds,
  mode: PaymentMode = "now",
) {
  const accepted = (await readChallenge(client, ids, mode)).accepts[0]!;
  return {
    scheme: accepted.scheme,
    network: accepted.network,
    asset: accepted.asset,
    amountUsdc: atomicToUsdc(BigInt(accepted.amount)),
    payTo: accepted.payTo,
    /** Seconds the signed authorization stays valid. */
    maxTimeoutSeconds: accepted.maxTimeoutSeconds,
    /** A protected payment's escrow (x402 `auth-capture`), or null when it pays at once. */
    escrow: accepted.scheme === "auth-capture" ? escrowTermsOf(accepted.extra) : null,
  };
}

/** The escrow terms an `auth-capture` requirement names (x402's auth-capture spec fields). */
function escrowTermsOf(extra: Record<string, unknown> | undefined) {
  const at = (seconds: unknown) => new Date(Number(seconds) * 1000).toISOString();
  return {
    /** The AuthCaptureEscrow contract that holds the USDC. */
    contract: String(extra?.authCaptureEscrow),
    /** The marketplace's operator: releases to the agent or returns to you. */
    operator: String(extra?.captureAuthorizer),
    /** Until then it can be released; after it, you may reclaim it on chain yourself. */
    heldUntil: at(extra?.captureDeadline),
    refundDeadline: at(extra?.refundDeadline),
    feeBps: Number(extra?.maxFeeBps ?? 0),
  };
}

/** The x402 scheme of each way to pay: `exact` moves the USDC at once, `auth-capture` holds it. */
const SCHEME_OF: Record<PaymentMode, string> = { now: "exact", escrow: "auth-capture" };

/** The longest a signed authorization may stay valid (the marketplace asks 5 minutes). */
const MAX_VALIDITY_SECONDS = 3_600;

/** What the payer agrees to, checked against the challenge before anything is signed. */
export interface PaymentExpectations {
  /** The most you agree to pay, in USDC: the job's budget, or the bid you chose. */
  maxUsdc: number;
  /** The payee you expect (the proposal's `payeeAddress`); another one is refused. */
  payTo?: string;
  /** The token, when it is not the network's USDC (USDC_BY_NETWORK). */
  asset?: string;
}

/**
 * Refuses a challenge that asks for anything the payer did not agree to: another scheme than
 * the mode's (a protected payment is never signed as an immediate transfer), a token other than
 * the network's USDC, more than `maxUsdc`, another payee, or a validity over an hour.
 */
export function checkChallenge(
  challenge: PaymentRequired,
  mode: PaymentMode,
  expected: PaymentExpectations,
): void {
  const ceiling = usdcToAtomic(expected.maxUsdc);
  if (challenge.accepts.length === 0) throw new PaymentTermsError("the challenge offers nothing");
  for (const offer of challenge.accepts) {
    const asset = expected.asset ?? USDC_BY_NETWORK[offer.network as keyof typeof USDC_BY_NETWORK];
    const problem =
      offer.scheme !== SCHEME_OF[mode]
        ? `scheme ${offer.scheme}, not ${SCHEME_OF[mode]} (mode ${mode})`
        : !asset || offer.asset.toLowerCase() !== asset.toLowerCase()
          ? `token ${offer.asset} on ${offer.network}, not its USDC`
          : BigInt(offer.amount) > ceiling
            ? `${atomicToUsdc(BigInt(offer.amount))} USDC, over your ${expected.maxUsdc}`
            : expected.payTo && offer.payTo.toLowerCase() !== expected.payTo.toLowerCase()
              ? `payee ${offer.payTo}, not ${expected.payTo}`
              : offer.maxTimeoutSeconds > MAX_VALIDITY_SECONDS
                ? `an authorization valid ${offer.maxTimeoutSeconds} s`
                : undefined;
    if (problem) throw new PaymentTermsError(`the challenge asks for ${problem}`);
  }
}

const RETRIED = (status: number, code: string | undefined) =>
  (status === 409 && code === "settlement_pending") || status === 503;

/**
 * Pays proposal `proposalId` of job `jobId` and returns the settlement (accept with its
 * txHash). Reads the challenge, refuses it unless it asks exactly for what `options` allow
 * (checkChallenge), signs it once, and on `409 settlement_pending` or a 503 waits (its
 * Retry-After) and sends the same signature again, as docs/payments.md says a client should.
 * Errors: PaymentTermsError before signing, MarketplaceError (with its `code`) for the
 * server's refusals. `client` must not carry a paying fetch (it would pay the challenge).
 */
export async function payProposal(
  client: MarketplaceClient,
  signer: ClientEvmSigner,
  ids: ProposalIds,
  options: PaymentExpectations & {
    /** `escrow`: a protected payment, held until the job is completed (docs/payments.md). */
    mode?: PaymentMode;
    pendingRetries?: number;
    retryDelayMs?: number;
  },
) {
  const mode = options.mode ?? "now";
  const challenge = await readChallenge(client, ids, mode);
  checkChallenge(challenge, mode, options);
  const payer = new x402HTTPClient(payerFor(signer, challenge.accepts, mode));
  const headers = payer.encodePaymentSignatureHeader(await payer.createPaymentPayload(challenge));
  const params = {
    path: { id: ids.jobId },
    query: { proposalId: ids.proposalId, mode },
  };
  const send = () => client.POST("/api/jobs/{id}/settle", { params, headers });
  let result = await send();
  for (let attempt = 0; attempt < (options.pendingRetries ?? 120); attempt++) {
    if (!RETRIED(result.response.status, result.error?.code)) break;
    const retryAfter = errorOf(result).retryAfterSeconds;
    const delay = retryAfter ? retryAfter * 1000 : (options.retryDelayMs ?? 1_000);
    await new Promise((resolve) => setTimeout(resolve, delay));
    result = await send();
  }
  if (!result.data) throw errorOf(result);
  return result.data.data;
}

/** An x402 client that signs for `signer` only what `requirements` name, in `mode`'s scheme. */
export function payerFor(
  signer: ClientEvmSigner,
  requirements: readonly PaymentRequirements[],
  mode: PaymentMode,
) {
  const networks = [...new Set(requirements.map((r) => r.network))];
  return x402Client.fromConfig({
    schemes: networks.map((network) => ({
      network,
      client: mode === "escrow" ? new AuthCaptureEvmScheme(signer) : new ExactEvmScheme(signer),
    })),
    spendControls: spendControlsFor(requirements),
  });
}

/** What a long-lived paying fetch may pay: one network and token, and a ceiling per payment. */
export interface PaymentLimits {
  /** CAIP-2: "eip155:8453" (Base) or "eip155:31337" (the local chain). */
  network: `${string}:${string}`;
  /** The USDC token address on that network. */
  asset: string;
  /** The most this fetch will pay for one request, in USDC. */
  maxUsdc: number;
}

/**
 * A fetch that answers any 402 challenge by paying within `limits`, signed by `account`
 * (@x402/fetch's wrapFetchWithPayment): for a program that pays many requests with one
 * standing ceiling. payProposal is the narrower way to pay one bid.
 */
export function x402PayingFetch(
  account: ClientEvmSigner,
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
