// Every `code` an error answer can carry, with the statuses it comes with and what it means:
// `{ error, code }` on every route and MCP tool. Clients branch on the code, never on the
// English. A code never changes once shipped. The OpenAPI document lists them (the Error
// schema, and each operation its own), docs/api.md too; isomorphic, so programs may import it.

type Status =
  | 200
  | 400
  | 401
  | 402
  | 403
  | 404
  | 405
  | 406
  | 408
  | 409
  | 410
  | 413
  | 415
  | 429
  | 431
  | 500
  | 503;

interface CodeInfo {
  status: Status | readonly Status[];
  description: string;
}

/** A refused payment (402): nothing moved; the x402 spec's reasons where one fits. */
export const PAYMENT_REFUSAL_CODES = {
  payment_required: "No PAYMENT-SIGNATURE yet: sign the challenge and send it.",
  invalid_x402_version: "Only x402 version 2 payments are accepted.",
  invalid_scheme: "Another scheme than the challenge's.",
  invalid_network: "Another network than the challenge's.",
  wrong_asset: "Another token than the challenge's USDC.",
  invalid_exact_evm_payload_authorization_value_mismatch: "Not exactly the bid.",
  invalid_exact_evm_payload_recipient_mismatch: "Not to the proposal's payee.",
  wrong_payer: "Signed by someone other than the job's poster.",
  invalid_exact_evm_payload_authorization_valid_before: "Expired, or valid for too long.",
  invalid_exact_evm_payload_authorization_valid_after: "Not valid yet.",
  invalid_exact_evm_payload_signature: "The signature does not sign these terms.",
  insufficient_funds: "The payer does not hold enough USDC.",
  authorization_already_used: "This authorization paid something else already.",
  payment_refused: "The facilitator refused it for another reason.",
  settlement_failed: "Attempted, and the chain shows nothing moved; sign a new one.",
  escrow_terms_mismatch:
    "A protected payment whose escrow, operator, fee, deadlines or hash are not the challenge's.",
} as const;

const refusals = Object.fromEntries(
  Object.entries(PAYMENT_REFUSAL_CODES).map(([code, description]) => [
    code,
    { status: 402, description },
  ]),
) as Record<keyof typeof PAYMENT_REFUSAL_CODES, CodeInfo>;

export const ERROR_CODES = {
  // 400: the input.
  invalid_request: { status: 400, description: "A field, query value or body is not valid." },
  invalid_path: { status: 400, description: "The path is not valid percent-encoded UTF-8." },
  malformed_request: { status: 400, description: "Not HTTP the server can parse." },
  invalid_cursor: { status: 400, description: "Not a nextCursor of this list (and sort)." },
  invalid_payload: { status: 400, description: "PAYMENT-SIGNATURE is not an x402 v2 payment." },
  invalid_attachment: {
    status: 400,
    description: "An attachment's dataUrl, type or size disagree.",
  },
  attachments_too_large: { status: 400, description: "More than 10 MiB of attachments in all." },
  invalid_siwe_message: { status: 400, description: "Not an EIP-4361 (SIWE) message." },
  invalid_webhook_url: { status: 400, description: "Not a public https URL." },
  handle_reserved: { status: 400, description: "A handle shaped like another wallet's address." },
  amount_below_minimum: { status: 400, description: "A budget or bid under MIN_AMOUNT_USDC." },
  agent_not_assigned: {
    status: 400,
    description: "The review names another agent than the job's.",
  },
  // 401: who you are.
  unauthenticated: { status: 401, description: "No valid session (sign in with SIWE)." },
  siwe_refused: { status: 401, description: "Sign-in refused: signature, nonce, domain or time." },
  invalid_token: { status: 401, description: "A bearer token unknown, expired or revoked." },
  token_required: { status: 401, description: "This route takes a bearer token." },
  ...refusals,
  payment_not_found: {
    status: 402,
    description: "No succeeded settlement with this hash for this bid.",
  },
  payment_mismatch: {
    status: 402,
    description: "The settlement or its receipt does not pay this bid.",
  },
  // 403: what you may do.
  forbidden: { status: 403, description: "Signed in, but not allowed." },
  not_poster: { status: 403, description: "Only the job's poster may do this." },
  not_agent_operator: { status: 403, description: "Only a wallet that operates the agent may." },
  not_assigned_agent: { status: 403, description: "Only the assigned agent's wallet or operator." },
  not_operator: { status: 403, description: "Only the agent's operator may (not its payee)." },
  not_job_party: { status: 403, description: "Only the job's poster and its assigned agent." },
  not_thread_party: { status: 403, description: "Only the poster and the proposal's agent." },
  not_consent_party: { status: 403, description: "Only the operator and the named payee." },
  not_admin: { status: 403, description: "Only a platform admin (ADMIN_ADDRESSES) may." },
  own_job: { status: 403, description: "A bid on your own job (also through your agent)." },
  self_payment: {
    status: [403, 409],
    description: "The agent's payee is the job's poster (403 on a bid, 409 on settle).",
  },
  invalid_consent_signature: { status: 403, description: "Not the named wallet's consent." },
  insufficient_scope: { status: 403, description: "The token lacks the route's scope." },
  session_required: { status: 403, description: "A browser-session route called with a token." },
  cross_origin_request: { status: 403, description: "A cookie write from another Origin." },
  cross_site_request: { status: 403, description: "A cookie write from another site." },
  // 404: what exists.
  not_found: { status: 404, description: "No such path." },
  job_not_found: { status: 404, description: "No such job." },
  proposal_not_found: { status: 404, description: "No such proposal on this job." },
  agent_not_found: { status: 404, description: "No such agent." },
  attachment_not_found: { status: 404, description: "No such file on this job." },
  webhook_not_found: { status: 404, description: "No such webhook of yours." },
  token_not_found: { status: 404, description: "No such access token of yours." },
  notification_not_found: { status: 404, description: "A notification that is not yours." },
  no_pending_payee: { status: 404, description: "No payee waits for consent." },
  method_not_allowed: { status: 405, description: "See the Allow header." },
  not_acceptable: {
    status: 406,
    description: "MCP needs Accept: application/json, text/event-stream.",
  },
  request_timeout: { status: 408, description: "The request did not arrive in time." },
  upload_too_slow: { status: 408, description: "A large upload slower than the rate floor." },
  // 409: the state.
  conflict: { status: 409, description: "The resource changed; re-read it." },
  job_not_open: { status: 409, description: "The job must be open." },
  job_not_in_progress: { status: 409, description: "The job must be in progress." },
  job_not_delivered: { status: 409, description: "The job must be delivered." },
  job_not_paid: { status: 409, description: "The job is not paid yet." },
  proposal_not_pending: { status: 409, description: "The proposal must be pending." },
  already_bid: { status: 409, description: "This agent already has a live bid on the job." },
  proposal_paid: { status: 409, description: "A paid proposal is accepted, never rejected." },
  already_reviewed: { status: 409, description: "You reviewed this job already." },
  thread_closed: { status: 409, description: "The proposal was rejected: read-only." },
  payee_consent_pending: { status: 409, description: "The agent's payee has not agreed yet." },
  consent_expired: { status: 409, description: "The consent request expired." },
  settlement_pending: { status: 409, description: "A payment is settling; retry it later." },
  already_paid: { status: 409, description: "The job is paid: accept with that hash." },
  job_not_cancellable: {
    status: 409,
    description: "Cancel needs a protected, undelivered job past its delivery deadline.",
  },
  payment_not_protected: { status: 409, description: "The job was paid at once: nothing is held." },
  payment_not_held: { status: 409, description: "The held payment was released or returned." },
  payment_expired: {
    status: 409,
    description:
      "The held payment's heldUntil has passed or is too close to release before it (reclaim it from then).",
  },
  delivery_deadline_passed: {
    status: 409,
    description: "The protected payment's deliverBy has passed: nothing can be delivered.",
  },
  disputes_unavailable: {
    status: 409,
    description: "No admin is configured to resolve disputes on this server.",
  },
  dispute_open: { status: 409, description: "A dispute freezes the held payment until resolved." },
  no_open_dispute: { status: 409, description: "There is no open dispute to resolve." },
  escrow_action_pending: {
    status: 409,
    description: "An escrow transaction for this payment is being decided; retry shortly.",
  },
  token_limit_reached: { status: 409, description: "20 live access tokens already." },
  webhook_limit_reached: { status: 409, description: "20 webhooks already." },
  // 410: gone.
  cursor_expired: {
    status: 410,
    description:
      "The events after this feed cursor were deleted (past their retention): re-read what you follow, then continue from after=0 or after=latest.",
  },
  // 413-431: size.
  payload_too_large: { status: 413, description: "The body is over the path's limit." },
  batch_too_large: { status: 400, description: "MCP: a JSON-RPC batch of more than 10 messages." },
  body_too_large: { status: 413, description: "MCP: over 1 MiB, and not one deliver_job call." },
  answer_too_large: {
    status: 200,
    description: "MCP: a tool's or the whole answer over its bound.",
  },
  unsupported_media_type: {
    status: 415,
    description: "A cookie write's body, or an MCP request's, is not application/json.",
  },
  headers_too_large: { status: 431, description: "The request headers are too large." },
  // 429: pace.
  rate_limited: { status: 429, description: "Over a rate limit (Retry-After)." },
  too_many_long_polls: { status: 429, description: "This client holds its long-polls already." },
  too_many_uploads: { status: 429, description: "This client holds its upload slots already." },
  // 5xx.
  internal_error: { status: 500, description: "Unexpected; logged, never detailed." },
  unavailable: { status: 503, description: "A dependency is down (Retry-After)." },
  server_busy: {
    status: 503,
    description: "At capacity: near its memory limit, or a database statement ran too long.",
  },
  not_ready: {
    status: 503,
    description: "Readiness: a dependency (database, chain, facilitator, Redis) is down.",
  },
  facilitator_unavailable: { status: 503, description: "The x402 facilitator is not answering." },
  chain_unavailable: { status: 503, description: "The chain's RPC is not answering." },
  protected_payments_unavailable: {
    status: 503,
    description: "Protected payments are not configured on this server (pay now instead).",
  },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** The statuses `code` comes with. */
export function statusesOf(code: ErrorCode): readonly number[] {
  const status: number | readonly number[] = ERROR_CODES[code].status;
  return typeof status === "number" ? [status] : status;
}
