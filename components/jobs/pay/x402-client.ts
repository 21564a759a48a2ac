// The browser's side of paying one proposal over x402 v2, with no React and no wallet library:
// read the 402 challenge, sign it with whatever signer the caller hands in, settle, accept.
// HTTP goes through the typed client (components/forms/api.ts); what a failure means is pay-errors.ts's job.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { sameAddress } from "@/lib/shared/address";
import { usdcToAtomic } from "@/lib/shared/money";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { api, callApi, describeFailure } from "@/components/api-client";
import {
  challengeFailure,
  challengeMismatch,
  challengeUnreadable,
  PayError,
  settleFailure,
  wrongNetwork,
} from "./pay-errors";
import type { PayTarget } from "./types";

export type Challenge =
  | { kind: "loading" }
  | { kind: "ready"; paymentRequired: PaymentRequired; requirement: PaymentRequirements }
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

function pickRequirement(paymentRequired: PaymentRequired, payment: PublicPaymentConfig) {
  return paymentRequired.accepts.find(
    (accept) => accept.scheme === "exact" && accept.network === payment.network,
  );
}

/** POST the x402 resource for one proposal: unpaid (→ 402 challenge) or with a signature. */
function settleRequest(target: PayTarget, headers?: SignatureHeaders) {
  return api.POST("/api/jobs/{id}/settle", {
    params: { path: { id: target.jobId }, query: { proposalId: target.proposalId } },
    headers,
  });
}

/** The first, unpaid POST: the server answers 402 with what it wants signed. Moves no money. */
export async function fetchChallenge(
  target: PayTarget,
  payment: PublicPaymentConfig,
): Promise<Challenge> {
  const result = await callApi(settleRequest(target));
  if (result.ok || result.status !== 402) return { kind: "error", ...challengeFailure(result) };
  let paymentRequired: PaymentRequired;
  try {
    paymentRequired = readPaymentRequired(result.headers, result.body);
  } catch {
    return { kind: "error", message: challengeUnreadable, conflict: false };
  }
  return checkChallenge(paymentRequired, target, payment);
}

/** Never sign something other than what the page shows: the bid, to the agent, in our USDC. */
function checkChallenge(
  paymentRequired: PaymentRequired,
  target: PayTarget,
  payment: PublicPaymentConfig,
): Challenge {
  const requirement = pickRequirement(paymentRequired, payment);
  if (!requirement) {
    const networks = paymentRequired.accepts.map((accept) => accept.network);
    return { kind: "error", message: wrongNetwork(networks), conflict: false };
  }
  const mismatch = [
    BigInt(requirement.amount) !== usdcToAtomic(target.bidUsdc) && "amount",
    !sameAddress(requirement.payTo, target.payeeWallet) && "payee",
    !sameAddress(requirement.asset, payment.asset) && "token",
  ].filter((field): field is string => Boolean(field));
  if (mismatch.length > 0) {
    return { kind: "error", message: challengeMismatch(mismatch), conflict: false };
  }
  return { kind: "ready", paymentRequired, requirement };
}

/** The EIP-3009 authorization for exactly the challenge's amount, payee and token. */
export async function signPayment(
  signer: TypedDataSigner,
  payment: PublicPaymentConfig,
  { paymentRequired, requirement }: ReadyChallenge,
): Promise<{ payload: PaymentPayload; headers: SignatureHeaders }> {
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
  const payload = await client.createPaymentPayload({ ...paymentRequired, accepts: [requirement] });
  return { payload, headers: client.encodePaymentSignatureHeader(payload) };
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
  headers: SignatureHeaders,
  onFreshChallenge: (challenge: ReadyChallenge) => void,
): Promise<string> {
  const result = await callApi(settleRequest(target, headers));
  if (result.ok) {
    if (result.data?.txHash) return result.data.txHash;
    throw new PayError(describeFailure(result.status, undefined), { resign: true });
  }
  if (result.status === 402) {
    try {
      const paymentRequired = readPaymentRequired(result.headers, result.body);
      const requirement = pickRequirement(paymentRequired, payment);
      if (requirement) onFreshChallenge({ kind: "ready", paymentRequired, requirement });
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
