// The typed client itself, without the SIWE and x402 helpers (index.ts adds them): what the
// browser's forms import, so a form does not pull in viem's signing code or x402.
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./api-types";

export type MarketplaceClient = Client<paths>;

export interface ClientOptions {
  /** The marketplace's origin, e.g. http://localhost:3000 (empty in the browser: same origin). */
  baseUrl?: string;
  /**
   * An access token (`mkt_…`, made on /me or with POST /api/v1/tokens): sent as
   * `Authorization: Bearer` on every request. Without one, sign in with `signIn`.
   */
  token?: string;
  /** A fetch to use instead of the global one (a paying fetch, a test's recorder). */
  fetch?: typeof fetch;
  /** Headers for every request. */
  headers?: Record<string, string>;
  /** The browser's cookie policy (same-origin: the session cookie goes along). */
  credentials?: RequestInit["credentials"];
  /** The browser's HTTP cache policy (no-store for writes and fresh reads). */
  cache?: RequestInit["cache"];
}

export function createMarketplaceClient(options: ClientOptions = {}): MarketplaceClient {
  const { baseUrl = "", token, headers, ...rest } = options;
  return createClient<paths>({
    baseUrl,
    headers: token ? { ...headers, authorization: `Bearer ${token}` } : headers,
    ...rest,
  });
}
