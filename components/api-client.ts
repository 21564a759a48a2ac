/** Browser-side calls to our own API: same-origin cookie, `{ data }` / `{ error }` envelope. */
import { createMarketplaceClient } from "@agent-marketplace/client/core";

export type ApiResult<T> =
  | { ok: true; status: number; data: T; headers: Headers }
  | {
      ok: false;
      /** 0 when the server could not be reached. */
      status: number;
      /** A sentence to show (see describeFailure). */
      error: string;
      /** The server's own `error` text, when it sent one. */
      serverError?: string;
      /** The parsed JSON body, if any (an x402 402 answer carries its requirements here). */
      body?: unknown;
      headers?: Headers;
    };

/**
 * The typed client every browser form, button and the pay flow call (lib/client: its paths and
 * bodies are checked against the OpenAPI document at compile time). Same origin, so the
 * session cookie goes along; never cached.
 */
export const api = createMarketplaceClient({ credentials: "same-origin", cache: "no-store" });

const UNREACHABLE = "Could not reach the server. Check your connection and retry.";

/** What openapi-fetch answers: the parsed body on success or on failure, and the response. */
interface ClientAnswer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The `data` inside our `{ data }` envelope, as the OpenAPI document types it. */
type Payload<A extends ClientAnswer> = NonNullable<A["data"]> extends { data: infer D } ? D : never;

/**
 * Awaits a typed-client call and folds it into an ApiResult: the envelope's `data`, or a
 * sentence to show with the status, the server's own message, its parsed body and headers.
 */
export async function callApi<A extends ClientAnswer>(
  call: Promise<A>,
): Promise<ApiResult<Payload<A>>> {
  let answer: A;
  try {
    answer = await call;
  } catch {
    return { ok: false, status: 0, error: UNREACHABLE };
  }
  const { response } = answer;
  if (response.ok && isEnvelope(answer.data)) {
    return {
      ok: true,
      status: response.status,
      data: answer.data.data as Payload<A>,
      headers: response.headers,
    };
  }
  const body = response.ok ? answer.data : answer.error;
  const serverError = errorText(body);
  return {
    ok: false,
    status: response.status,
    error: describeFailure(response.status, serverError),
    serverError,
    body,
    headers: response.headers,
  };
}

/**
 * POST to a route outside the OpenAPI document: the local chain's faucet (a dev hook) is the
 * only one. Same envelope and failures as `callApi`, without the types.
 */
export function postUndocumented(path: string, body: unknown): Promise<ApiResult<unknown>> {
  const answer = fetch(path, {
    method: "POST",
    credentials: "same-origin",
    cache: "no-store",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (response) => {
    const parsed: unknown = await response.json().catch(() => undefined);
    return response.ok ? { data: parsed, response } : { error: parsed, response };
  });
  return callApi(answer);
}

function isEnvelope(body: unknown): body is { data: unknown } {
  return typeof body === "object" && body !== null && "data" in body;
}

function errorText(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  return typeof body.error === "string" ? body.error : undefined;
}

export function describeFailure(status: number, error: string | undefined): string {
  if (status === 401)
    return "Your session has expired or you are not signed in. Sign in with your wallet and retry.";
  if (status === 429) return "Too many requests right now. Wait a moment and retry.";
  if (error) return capitalize(error);
  if (status === 413) return "That is too large for the server to accept.";
  return `The server answered with an error (HTTP ${status}). Please retry.`;
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
