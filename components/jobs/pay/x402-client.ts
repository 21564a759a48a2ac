// The browser's side of paying one proposal over x402 v2, with no React and no wallet library:
// read the 402 challenge, sign it with whatever signer the caller hands in, settle, accept.
// Two ways to pay: now (x402 `exact`, the agent is paid at once) and protected (x402
// `auth-capture`, held in the Commerce Payments escrow until the job is completed).
// HTTP goes through the typed client (components/forms/api.ts); what a failure means is pay-errors.ts's job.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { api, callApi, describeFailure } from "@/components/api-client";
import {
  challengeMismatches,
  type EscrowTerms,
  escrowTermsOf,
  type PayMode,
  pickRequirement,
} from "./challenge-check";
import {
  challengeFailure,
  challengeMismatch,
  challengeUnreadable,
  noOffer,
  PayError,
  settleFailure,
} from "./pay-errors";
import type { PayTarget } from "./types";

export type { PayMode };

export type Challenge =
  | { kind: "loading" }
  | {
      kind: "ready";
      mode: PayMode;
      paymentRequired: PaymentRequired;
      requirement: PaymentRequirements;
      /** A protected payment's deadlines and fee, from the challenge; null paying now. */
      escrow: EscrowTerms | null;
    }
  | { kind: "error"; message: string; conflict: boolean };

export type ReadyChallenge = Extract<Challenge, { kind: "ready" }>;

/** Signs EIP-712 typed data as `address` (the caller's wallet). */
export interface TypedDataSigner {
  address: `0x${string}`;
  signTypedData(message: {
    domain: Record<string, unknown>;
    types: Record<string, unknown>;
    primaryType: string;
    message: Record<string, unknown>;
  }): Promise<`0x${string}`>;
}

export type SignatureHeaders = Record<string, string>;

// Reads 402 answers and encodes payment headers; never signs.
const codec = new x402HTTPClient(new x402Client());

function readPaymentRequired(headers: Headers | undefined, body: unknown): PaymentRequired {
  return codec.getPaymentRequiredResponse((name) => headers?.get(name), body);
}

/** POST the x402 resource for one proposal: unpaid (→ 402 challenge) or with a signature. */
function settleRequest(target: PayTarget, mode: PayMode, headers?: SignatureHeaders) {
  return api.POST("/api/jobs/{id}/settle", {
    params: {
      path: { id: target.jobId },
      // Pay-now asks exactly as before protected payments existed (no mode: the default).
      query: { proposalId: target.proposalId, ...(mode === "escrow" ? { mode } : {}) },
    },
    headers,
  });
}

/** The first, unpaid POST: the server answers 402 with what it wants signed. Moves no money. */
export async function fetchChallenge(
  target: PayTarget,
  payment: PublicPaymentConfig,
  mode: PayMode = "now",
): Promise<Challenge> {
  const result = await callApi(settleRequest(target, mode));
  if (result.ok || result.status !== 402) return { kind: "error", ...challengeFailure(result) };
  let paymentRequired: PaymentRequired;
  try {
    paymentRequired = readPaymentRequired(result.headers, result.body);
  } catch {
    return { kind: "error", message: challengeUnreadable, conflict: false };
  }
  return checkChallenge(paymentRequired, target, payment, mode);
}

/**
 * Never sign something other than what the page shows: the bid, to the agent, in our USDC;
 * protected, into our escrow with our operator (challenge-check.ts).
 */
export function checkChallenge(
  paymentRequired: PaymentRequired,
  target: PayTarget,
  payment: PublicPaymentConfig,
  mode: PayMode,
  nowSeconds = Math.floor(Date.now() / 1000),
): Challenge {
  const requirement = pickRequirement(paymentRequired, payment, mode);
  if (!requirement) {
    const offers = paymentRequired.accepts.map((accept) => `${accept.scheme} on ${accept.network}`);
    return { kind: "error", message: noOffer(mode, offers), conflict: false };
  }
  const mismatch = challengeMismatches(requirement, target, payment, mode, nowSeconds);
  if (mismatch.length > 0) {
    return { kind: "error", message: challengeMismatch(mismatch), conflict: false };
  }
  const escrow =
    mode === "escrow" && payment.escrow ? escrowTermsOf(requirement, payment.escrow) : null;
  return { kind: "ready", mode, paymentRequired, requirement, escrow };
}

/**
 * Signs the checked challenge: paying now, the EIP-3009 transfer to the agent; protected, the
 * EIP-3009 authorization into the escrow's collector for exactly those terms.
 */
export async function signPayment(
  signer: TypedDataSigner,
  payment: PublicPaymentConfig,
  challenge: ReadyChallenge,
): Promise<{ payload: PaymentPayload; headers: SignatureHeaders }> {
  const payload =
    challenge.mode === "escrow"
      ? await signEscrowPayment(signer, challenge)
      : await signExactPayment(signer, payment, challenge);
  return { payload, headers: signatureHeaders(payload) };
}

/** The EIP-3009 authorization for exactly the challenge's amount, payee and token. */
async function signExactPayment(
  signer: TypedDataSigner,
  payment: PublicPaymentConfig,
  { paymentRequired, requirement }: ReadyChallenge,
): Promise<PaymentPayload> {
  const client = new x402HTTPClient(
    x402Client.fromConfig({
      schemes: [{ network: payment.network, client: new ExactEvmScheme(signer) }],
      // Our token only, capped at exactly the amount shown.
      spendControls: {
        maxAmountPerPayment: false,
        allowedAssets: [
          {
            network: payment.network,
            asset: payment.asset,
            maxAmountPerPayment: requirement.amount,
          },
        ],
      },
    }),
  );
  return client.createPaymentPayload({ ...paymentRequired, accepts: [requirement] });
}

/**
 * x402's published auth-capture client signs the protected payment: it rebuilds the escrow's
 * PaymentInfo from the challenge and signs the ERC-3009 authorization whose nonce is its hash.
 * Loaded only when a poster pays protected.
 */
async function signEscrowPayment(
  signer: TypedDataSigner,
  { paymentRequired, requirement }: ReadyChallenge,
): Promise<PaymentPayload> {
  const { AuthCaptureEvmScheme } = await import("@x402/evm/auth-capture/client");
  const { payload } = await new AuthCaptureEvmScheme(signer).createPaymentPayload(2, requirement);
  return { x402Version: 2, resource: paymentRequired.resource, accepted: requirement, payload };
}

/** The headers that carry an already signed authorization (a retry resends the same one). */
export function signatureHeaders(payload: PaymentPayload): SignatureHeaders {
  return codec.encodePaymentSignatureHeader(payload);
}

/**
 * The paid POST → the settlement's transaction hash. A refusal (402) comes with a fresh
 * challenge, handed to `onFreshChallenge` so that a retry signs against it.
 */
export async function settlePayment(
  target: PayTarget,
  payment: PublicPaymentConfig,
  mode: PayMode,
  headers: SignatureHeaders,
  onFreshChallenge: (challenge: Challenge) => void,
): Promise<string> {
  const result = await callApi(settleRequest(target, mode, headers));
  if (result.ok) {
    if (result.data?.txHash) return result.data.txHash;
    throw new PayError(describeFailure(result.status, undefined), { resign: true });
  }
  if (result.status === 402) {
    try {
      const fresh = checkChallenge(
        readPaymentRequired(result.headers, result.body),
        target,
        payment,
        mode,
      );
      if (fresh.kind === "ready") onFreshChallenge(fresh);
    } catch {
      // keep the previous challenge
    }
  }
  throw settleFailure(result);
}

/** POST accept with the settlement's hash: the proposal is accepted, the job in progress. */
export async function acceptPaidProposal(target: PayTarget, txHash: string): Promise<void> {
  const result = await callApi(
    api.POST("/api/v1/jobs/{id}/accept", {
      params: { path: { id: target.jobId } },
      body: { proposalId: target.proposalId, txHash },
    }),
  );
  if (!result.ok) throw new PayError(result.error);
}
