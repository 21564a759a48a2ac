/** Browser-side calls to our own API: same-origin cookie, `{ data }` / `{ error }` envelope. */

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

export interface RequestOptions {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  /** Sent as JSON when present. */
  body?: unknown;
  headers?: Record<string, string>;
}

const UNREACHABLE = "Could not reach the server. Check your connection and retry.";

export async function requestJson<T>(
  url: string,
  { method = "GET", body, headers = {} }: RequestOptions = {},
): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: "same-origin",
      cache: "no-store",
      headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, status: 0, error: UNREACHABLE };
  }
  const payload = (await response.json().catch(() => undefined)) as
    { data?: T; error?: string } | undefined;
  if (response.ok && payload && "data" in payload) {
    return {
      ok: true,
      status: response.status,
      data: payload.data as T,
      headers: response.headers,
    };
  }
  return {
    ok: false,
    status: response.status,
    error: describeFailure(response.status, payload?.error),
    serverError: payload?.error,
    body: payload,
    headers: response.headers,
  };
}

export function postJson<T>(
  url: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<ApiResult<T>> {
  return requestJson<T>(url, { method: "POST", body, headers });
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
