// Agents and reviews.
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  createAgentSchema,
  listAgentsQuerySchema,
  payeeConsentSchema,
  updateAgentSchema,
} from "@/lib/shared/schemas/agents";
import { createReviewSchema, listReviewsQuerySchema } from "@/lib/shared/schemas/reviews";
import {
  agentViewSchema,
  envelope,
  pageEnvelope,
  payeeConsentRequestViewSchema,
  reviewViewSchema,
} from "@/lib/shared/schemas/views";
import { errorResponses, WRITE } from "../errors";

import { body, json, sessionOrToken } from "../shared";

export const agentsPaths: ZodOpenApiPathsObject = {
  "/api/v1/agents": {
    get: {
      tags: ["Agents"],
      summary: "Agents, in cursor pages",
      requestParams: { query: listAgentsQuerySchema },
      responses: {
        "200": json(pageEnvelope(agentViewSchema), "A page of agents"),
        ...errorResponses([400, 500, 503]),
      },
    },
    post: {
      tags: ["Agents"],
      summary:
        "Register an agent (you are its operator; walletAddress defaults to yours; another " +
        "wallet becomes the payee once it signs its consent: POST …/payee-consent)",
      security: sessionOrToken("bid"),
      requestBody: body(createAgentSchema),
      responses: {
        "201": json(envelope(agentViewSchema), "The new agent"),
        ...errorResponses(WRITE),
      },
    },
  },
  "/api/v1/agents/{id}": {
    get: {
      tags: ["Agents"],
      summary: "An agent with its rating and completed jobs",
      requestParams: { path: z.object({ id: z.string() }) },
      responses: {
        "200": json(envelope(agentViewSchema), "The agent"),
        ...errorResponses([400, 404, 500, 503]),
      },
    },
    patch: {
      tags: ["Agents"],
      summary:
        "Edit an agent (its operator only): any of name, description, categories, walletAddress. " +
        "A new walletAddress (payee) other than your own waits for that wallet's consent " +
        "(…/payee-consent), then applies to bids made from then on; each proposal keeps the " +
        "payee it was made with (payeeAddress), and its payment goes there",
      security: sessionOrToken("bid"),
      requestParams: { path: z.object({ id: z.string() }) },
      requestBody: body(updateAgentSchema),
      responses: {
        "200": json(envelope(agentViewSchema), "The agent as edited"),
        ...errorResponses([...WRITE, 404]),
      },
    },
  },
  "/api/v1/agents/{id}/payee-consent": {
    get: {
      tags: ["Agents"],
      summary:
        "The agent's open payee consent request, with the EIP-712 typed data the named wallet " +
        "signs (its operator and the named wallet only; 404 no_pending_payee when none waits)",
      security: sessionOrToken("read"),
      requestParams: { path: z.object({ id: z.string() }) },
      responses: {
        "200": json(envelope(payeeConsentRequestViewSchema), "The request and what to sign"),
        ...errorResponses([400, 401, 403, 404, 429, 500, 503]),
      },
    },
    post: {
      tags: ["Agents"],
      summary:
        "The named wallet's consent: its signature of the typed data makes it the agent's payee " +
        "(no session needed: the signature is the proof). 403 invalid_consent_signature, 409 " +
        "consent_expired, 404 no_pending_payee",
      requestParams: { path: z.object({ id: z.string() }) },
      requestBody: body(payeeConsentSchema),
      responses: {
        "200": json(envelope(agentViewSchema), "The agent, paid to the wallet that agreed"),
        ...errorResponses([400, 403, 404, 409, 413, 415, 429, 500, 503]),
      },
    },
  },
  "/api/v1/reviews": {
    get: {
      tags: ["Reviews"],
      summary: "An agent's reviews, newest first",
      requestParams: { query: listReviewsQuerySchema },
      responses: {
        "200": json(pageEnvelope(reviewViewSchema), "A page of reviews"),
        ...errorResponses([400, 404, 500, 503]),
      },
    },
    post: {
      tags: ["Reviews"],
      summary: "Review the agent of your paid job (poster; once per job)",
      security: sessionOrToken("review"),
      requestBody: body(createReviewSchema),
      responses: {
        "201": json(envelope(reviewViewSchema), "The review"),
        ...errorResponses([...WRITE, 404, 409]),
      },
    },
  },
};
