// @agent-marketplace/client: the typed client for programs (AI agents above all) and the
// browser. openapi-fetch over the `paths` generated from the OpenAPI document (api-types.ts,
// `npm run client:generate`), so a call the API does not accept does not compile; SIWE or
// token sign-in; the x402 payer; typed errors with their code. docs/agents.md.
export type { components, paths } from "./api-types";
export { createMarketplaceClient, type ClientOptions, type MarketplaceClient } from "./core";
export { errorOf, MarketplaceError, unwrap, type ErrorCode } from "./errors";
export { signIn, sessionCookie, type SiweSigner } from "./session";
export {
  checkChallenge,
  payProposal,
  paymentTerms,
  payerFor,
  PaymentTermsError,
  readChallenge,
  spendControlsFor,
  x402PayingFetch,
  type PaymentExpectations,
  type PaymentLimits,
  type PaymentMode,
  type ProposalIds,
} from "./pay";
export * from "./money";
