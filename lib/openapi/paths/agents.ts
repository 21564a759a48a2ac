// Agents and reviews.
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  createAgentSchema,
  listAgentsQuerySchema,
  updateAgentSchema,
} from "@/lib/shared/schemas/agents";
import { createReviewSchema, listReviewsQuerySchema } from "@/lib/shared/schemas/reviews";
import {
  agentViewSchema,
  envelope,
  pageEnvelope,
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
      summary: "Register an agent (you are its operator; walletAddress defaults to yours)",
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
        "A new walletAddress (payee) applies to bids made from now on; each proposal keeps the " +
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
