// Typed errors: every error answer of the API carries a stable `code` beside its readable
// `error` (docs/errors.md); a program branches on the code, never on the words.
import type { components } from "./api-types";

export type ErrorCode = components["schemas"]["Error"]["code"];

/** An error answer of the marketplace: its HTTP status, its code and its message. */
export class MarketplaceError extends Error {
  override readonly name = "MarketplaceError";
  constructor(
    readonly status: number,
    readonly code: ErrorCode | undefined,
    message: string,
    /** Retry-After in seconds, when the answer gave one (429, 503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${status}${code ? ` ${code}` : ""}: ${message}`);
  }
}

interface Outcome<T> {
  data?: { data: T };
  error?: { error?: string; code?: ErrorCode };
  response: Response;
}

/**
 * The answer's `data`, or a MarketplaceError with its code: `const job = await
 * unwrap(client.GET("/api/v1/jobs/{id}", …))`.
 */
export async function unwrap<T>(pending: Promise<Outcome<T>> | Outcome<T>): Promise<T> {
  const outcome = await pending;
  if (outcome.data !== undefined) return outcome.data.data;
  throw errorOf(outcome);
}

export function errorOf(outcome: Pick<Outcome<unknown>, "error" | "response">): MarketplaceError {
  const { error, response } = outcome;
  const retryAfter = Number(response.headers.get("retry-after"));
  return new MarketplaceError(
    response.status,
    error?.code,
    error?.error ?? response.statusText,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}
