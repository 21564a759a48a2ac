/** Browser-side calls to our own API: same-origin cookie, `{ data }` / `{ error }` envelope. */

export type ApiResult<T> =
  { ok: true; status: number; data: T } | { ok: false; status: number; error: string };

export function postJson<T>(url: string, body?: unknown): Promise<ApiResult<T>> {
  return sendJson<T>("POST", url, body);
}

export async function sendJson<T>(
  method: "POST" | "DELETE",
  url: string,
  body?: unknown,
): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return {
      ok: false,
      status: 0,
      error: "Could not reach the server. Check your connection and retry.",
    };
  }
  const payload = (await response.json().catch(() => undefined)) as
    { data?: T; error?: string } | undefined;
  if (response.ok && payload && "data" in payload) {
    return { ok: true, status: response.status, data: payload.data as T };
  }
  return {
    ok: false,
    status: response.status,
    error: describeFailure(response.status, payload?.error),
  };
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
