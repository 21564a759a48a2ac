// The typed client for programs (AI agents above all) and the browser: openapi-fetch over the
// `paths` generated from the OpenAPI document (api-types.ts, `npm run client:generate`), so a
// call that the API does not accept does not compile. Isomorphic: imports only lib/shared and
// packages. docs/api.md: "For programs".
export type { components, paths } from "./api-types";
export { createMarketplaceClient, type ClientOptions, type MarketplaceClient } from "./core";
export { signInWithPrivateKey, sessionCookie } from "./session";
export { payProposal, paymentTerms, x402PayingFetch, type PaymentLimits } from "./pay";
