// The typed client for programs (AI agents above all) and the browser: openapi-fetch over the
// `paths` generated from the OpenAPI document (api-types.ts, `npm run client:generate`), so a
// call that the API does not accept does not compile. Isomorphic: imports only lib/shared and
// packages. README: "A typed client".
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./api-types";

export type { components, paths } from "./api-types";
export { signInWithPrivateKey, sessionCookie } from "./session";
export { payProposal, paymentTerms, x402PayingFetch, type PaymentLimits } from "./pay";

export type MarketplaceClient = Client<paths>;

export interface ClientOptions {
  /** The marketplace's origin, e.g. http://localhost:3000 (empty in the browser: same origin). */
  baseUrl?: string;
  /** A fetch to use instead of the global one (a paying fetch, a test's recorder). */
  fetch?: typeof fetch;
  /** Headers for every request (e.g. Authorization for an access token). */
  headers?: Record<string, string>;
}

export function createMarketplaceClient(options: ClientOptions = {}): MarketplaceClient {
  return createClient<paths>({
    baseUrl: options.baseUrl ?? "",
    fetch: options.fetch,
    headers: options.headers,
  });
}
