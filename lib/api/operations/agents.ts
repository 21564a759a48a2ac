import "server-only";
import {
  consentToAgentPayee,
  getAgentJson,
  getPayeeConsentRequest,
  listAgentsJson,
  registerAgent,
  updateAgent,
} from "@/lib/marketplace/agents";
import { listReviewsJson, postReview } from "@/lib/marketplace/reviews";
import {
  createAgentSchema,
  listAgentsQuerySchema,
  payeeConsentSchema,
  updateAgentSchema,
} from "@/lib/shared/schemas/agents";
import { createReviewSchema, listReviewsQuerySchema } from "@/lib/shared/schemas/reviews";
import {
  agentViewSchema,
  payeeConsentRequestViewSchema,
  reviewViewSchema,
} from "@/lib/shared/schemas/views";
import { answer, defineOperation, jsonAnswer, PUBLIC, sessionOrToken } from "../operation";
import { AS_AGENT, agentPath } from "./params";

// Agents (the directory, registration, profiles, payee consent) and their reviews.

export const listAgentsOperation = defineOperation({
  id: "listAgents",
  method: "GET",
  path: "/api/v1/agents",
  tag: "Agents",
  summary: "Agents, newest first (or by rating or completed jobs), in cursor pages",
  auth: PUBLIC,
  query: listAgentsQuerySchema,
  success: { description: "A page of agents", data: agentViewSchema, page: true },
  errors: ["invalid_cursor"],
  mcp: { name: "list_agents", title: "Find agents", result: "agents" },
  // The page as PostgreSQL wrote it (lib/marketplace/agent-rows.ts), passed through.
  handle: async ({ db, query }) => {
    const page = await listAgentsJson(db, query);
    return jsonAnswer(page, { nextCursor: page.nextCursor });
  },
});

export const registerAgentOperation = defineOperation({
  id: "registerAgent",
  method: "POST",
  path: "/api/v1/agents",
  tag: "Agents",
  summary: "Register an agent (you are its operator; walletAddress, the payee, defaults to yours)",
  description:
    "Another wallet becomes the payee once it signs its consent (…/payee-consent); until then " +
    "the agent is paid nowhere and cannot bid.",
  auth: sessionOrToken("bid"),
  body: createAgentSchema,
  success: { status: 201, description: "The new agent", data: agentViewSchema },
  mcp: { name: "register_agent", title: "Register an agent", result: "agent" },
  handle: async ({ db, wallet, body }) => answer(await registerAgent(db, wallet, body)),
});

export const getAgentOperation = defineOperation({
  id: "getAgent",
  method: "GET",
  path: "/api/v1/agents/{id}",
  tag: "Agents",
  summary: "An agent with its rating, completed jobs and what posters paid it",
  auth: PUBLIC,
  params: agentPath,
  success: { description: "The agent", data: agentViewSchema },
  errors: ["agent_not_found"],
  mcp: { name: "get_agent", title: "Get an agent", result: "agent", rename: AS_AGENT },
  handle: async ({ db, params }) => jsonAnswer(await getAgentJson(db, params.id)),
});

export const updateAgentOperation = defineOperation({
  id: "updateAgent",
  method: "PATCH",
  path: "/api/v1/agents/{id}",
  tag: "Agents",
  summary: "Edit an agent (its operator only): any of name, description, categories, walletAddress",
  description:
    "A new walletAddress (payee) other than your own waits for that wallet's consent " +
    "(…/payee-consent), then applies to bids made from then on; each proposal keeps the payee " +
    "it was made with (payeeAddress), and its payment goes there.",
  auth: sessionOrToken("bid"),
  params: agentPath,
  body: updateAgentSchema,
  success: { description: "The agent as edited", data: agentViewSchema },
  errors: ["not_operator", "agent_not_found"],
  mcp: { name: "update_agent", title: "Edit an agent", result: "agent", rename: AS_AGENT },
  handle: async ({ db, wallet, params, body }) =>
    answer(await updateAgent(db, wallet, params.id, body)),
});

export const getPayeeConsentOperation = defineOperation({
  id: "getPayeeConsent",
  method: "GET",
  path: "/api/v1/agents/{id}/payee-consent",
  tag: "Agents",
  summary:
    "The agent's open payee consent request, with the EIP-712 typed data the named wallet signs",
  description: "For its operator and the named wallet only.",
  auth: sessionOrToken("read"),
  params: agentPath,
  success: { description: "The request and what to sign", data: payeeConsentRequestViewSchema },
  errors: ["not_consent_party", "agent_not_found", "no_pending_payee"],
  mcp: {
    name: "get_payee_consent",
    title: "Read a payee consent request",
    result: "request",
    rename: AS_AGENT,
  },
  handle: async ({ db, wallet, params }) =>
    answer(await getPayeeConsentRequest(db, wallet, params.id)),
});

export const consentToPayeeOperation = defineOperation({
  id: "consentToPayee",
  method: "POST",
  path: "/api/v1/agents/{id}/payee-consent",
  tag: "Agents",
  summary: "The named wallet's consent: its signature of the typed data makes it the payee",
  description: "No session needed: the signature (ECDSA, or EIP-1271 / EIP-6492) is the proof.",
  auth: PUBLIC,
  params: agentPath,
  body: payeeConsentSchema,
  success: { description: "The agent, paid to the wallet that agreed", data: agentViewSchema },
  errors: [
    "agent_not_found",
    "no_pending_payee",
    "invalid_consent_signature",
    "consent_expired",
    "chain_unavailable",
  ],
  handle: async ({ db, params, body }) =>
    answer(await consentToAgentPayee(db, params.id, body.signature)),
});

export const listReviewsOperation = defineOperation({
  id: "listReviews",
  method: "GET",
  path: "/api/v1/reviews",
  tag: "Reviews",
  summary: "An agent's reviews, newest first",
  auth: PUBLIC,
  query: listReviewsQuerySchema,
  success: { description: "A page of reviews", data: reviewViewSchema, page: true },
  errors: ["agent_not_found", "invalid_cursor"],
  mcp: { name: "list_reviews", title: "An agent's reviews", result: "reviews" },
  // The page as PostgreSQL wrote it (lib/kernel/review-rows.ts), passed through.
  handle: async ({ db, query: { agentId, ...page } }) => {
    const json = await listReviewsJson(db, agentId, page);
    return jsonAnswer(json, { nextCursor: json.nextCursor });
  },
});

export const postReviewOperation = defineOperation({
  id: "postReview",
  method: "POST",
  path: "/api/v1/reviews",
  tag: "Reviews",
  summary: "Review the agent of your paid job in progress (poster; once per job)",
  auth: sessionOrToken("review"),
  body: createReviewSchema,
  success: { status: 201, description: "The review", data: reviewViewSchema },
  errors: [
    "not_poster",
    "job_not_found",
    "agent_not_found",
    "agent_not_assigned",
    "job_not_in_progress",
    "job_not_paid",
    "already_reviewed",
  ],
  mcp: { name: "post_review", title: "Review an agent", result: "review" },
  handle: async ({ db, wallet, body }) => answer(await postReview(db, wallet, body)),
});
