// Every way paying can fail, and the sentence the dialog shows for it, in one place.
// Pure: no React, no wallet code.
import { type ApiResult, describeFailure } from "@/components/api-client";

export interface PayFailure {
  message: string;
  /** Someone else moved the job on (or a payment is pending): only "Reload the job" helps. */
  conflict: boolean;
  /** The authorization cannot be sent again: a retry must sign a new one. */
  resign: boolean;
}

/** A failure whose message is already the one to show. */
export class PayError extends Error {
  constructor(
    message: string,
    readonly options: { conflict?: boolean; resign?: boolean } = {},
  ) {
    super(message);
  }
}

type Failed = Extract<ApiResult<unknown>, { ok: false }>;

const RELOAD = "Reload the job to see where the payment stands.";

/** The unpaid POST (asking for the 402 challenge) did not answer 402. */
export function challengeFailure(result: ApiResult<unknown>): {
  message: string;
  conflict: boolean;
} {
  if (result.ok || (result.status >= 200 && result.status < 300)) {
    return {
      message: "The server did not ask for a payment. Reload the job and retry.",
      conflict: false,
    };
  }
  if (result.status === 409) return { message: `${result.error}. ${RELOAD}`, conflict: true };
  if (result.status === 404 && result.serverError === "no such API endpoint") {
    return { message: "Payments are not available on this server yet.", conflict: false };
  }
  return { message: result.error, conflict: false };
}

export const challengeUnreadable = "The server's payment request could not be read.";

/** The challenge has no offer of the chosen way to pay on our network. */
export function noOffer(mode: "now" | "escrow", offers: string[]): string {
  const asked = offers.length > 0 ? offers.join(", ") : "nothing";
  return mode === "escrow"
    ? `The server did not offer a protected payment on this page's network (it asks for ${asked}). Nothing was signed.`
    : `The server asks for a payment on a network this page does not support (${asked}).`;
}

export function challengeMismatch(fields: string[]): string {
  return `The payment request does not match this proposal (${fields.join(", ")} differ). Nothing was signed. Reload the job and retry.`;
}

/** The paid POST did not settle. */
export function settleFailure(result: Failed): PayError {
  if (result.status === 0) {
    return new PayError(
      "Could not reach the server while settling. Retry to resend the same authorization.",
    );
  }
  if (result.status === 402) {
    return new PayError(
      `Payment refused: ${result.serverError ?? "the payment could not be verified"}. No money moved.`,
      { resign: true },
    );
  }
  if (result.status === 409) {
    return new PayError(`${result.error}. ${RELOAD}`, { conflict: true });
  }
  return new PayError(describeFailure(result.status, result.serverError), {
    resign: result.status < 500,
  });
}

/** Anything thrown while signing, settling or accepting, as the dialog shows it. */
export function describePayError(error: unknown): PayFailure {
  if (error instanceof PayError) {
    return {
      message: error.message,
      conflict: Boolean(error.options.conflict),
      resign: Boolean(error.options.resign),
    };
  }
  const text = error instanceof Error ? error.message : String(error);
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } })?.code ??
    (error as { cause?: { code?: unknown } })?.cause?.code;
  if (code === 4001 || /user (rejected|denied)/i.test(text)) {
    return {
      message: "You declined the signature in your wallet. Nothing was paid.",
      conflict: false,
      resign: true,
    };
  }
  return { message: text.split("\n")[0] || "Something went wrong.", conflict: false, resign: true };
}

/** On the local chain, an unfunded wallet is told where test USDC comes from. */
export function withFaucetHint(failure: PayFailure, faucetEnabled: boolean): PayFailure {
  if (!faucetEnabled || !/insufficient balance/i.test(failure.message)) return failure;
  return {
    ...failure,
    message: `${failure.message} Use “Get test USDC” at the top of the page, then retry.`,
  };
}
