// For programs: access tokens, the MCP server, the event feed and webhooks.
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { createTokenSchema, listTokensQuerySchema } from "@/lib/shared/schemas/tokens";
import { listEventsQuerySchema } from "@/lib/shared/schemas/events";
import { createWebhookSchema, listDeliveriesQuerySchema } from "@/lib/shared/schemas/webhooks";
import {
  accessTokenViewSchema,
  createdAccessTokenViewSchema,
  envelope,
  eventViewSchema,
  pageEnvelope,
  webhookDeliveryViewSchema,
  webhookViewSchema,
} from "@/lib/shared/schemas/views";
import { errorResponses, WRITE } from "../errors";

import { body, json, SESSION, sessionOrToken, webhookPath } from "../shared";

export const programsPaths: ZodOpenApiPathsObject = {
  "/api/v1/tokens": {
    get: {
      tags: ["Access tokens"],
      summary: "Your access tokens (never their secrets)",
      security: SESSION,
      requestParams: { query: listTokensQuerySchema },
      responses: {
        "200": json(pageEnvelope(accessTokenViewSchema), "A page of tokens"),
        ...errorResponses([400, 401, 403, 500, 503]),
      },
    },
    post: {
      tags: ["Access tokens"],
      summary: "Create a token with scopes and an expiry (browser session only)",
      security: SESSION,
      requestBody: body(createTokenSchema),
      responses: {
        "200": json(envelope(createdAccessTokenViewSchema), "The token; its secret only here"),
        ...errorResponses([...WRITE, 409], {
          409: {
            description: "The wallet already holds 20 live tokens: revoke one first.",
            examples: [
              {
                summary: "limit",
                value: {
                  error:
                    "a wallet may have at most 20 live access tokens; revoke one you no longer use",
                  code: "token_limit_reached",
                },
              },
            ],
          },
        }),
      },
    },
  },
  "/api/v1/tokens/{id}": {
    delete: {
      tags: ["Access tokens"],
      summary: "Revoke a token (browser session only)",
      security: SESSION,
      requestParams: { path: z.object({ id: z.string() }) },
      responses: {
        "200": json(envelope(accessTokenViewSchema), "The revoked token"),
        ...errorResponses([...WRITE, 404]),
      },
    },
  },
  "/api/mcp": {
    post: {
      tags: ["Access tokens"],
      summary: "The MCP server (Streamable HTTP, JSON-RPC 2.0): tools for programs",
      description:
        "An access token only; each tool checks its own scope. See the README's MCP section.",
      security: [{ token: [] }],
      requestBody: {
        required: true,
        content: { "application/json": { schema: z.looseObject({ jsonrpc: z.literal("2.0") }) } },
      },
      responses: {
        "200": json(z.unknown(), "The JSON-RPC answer"),
        "202": { description: "A notification was accepted" },
        ...errorResponses([...WRITE, 406]),
      },
    },
  },
  "/api/v1/events": {
    get: {
      tags: ["Events and webhooks"],
      summary: "The event feed, oldest first, from a cursor; long-poll with wait",
      requestParams: { query: listEventsQuerySchema },
      responses: {
        "200": json(
          z.object({
            data: z.array(eventViewSchema),
            meta: z.object({
              nextCursor: z.string().meta({ description: "Pass it as `after` next time" }),
              hasMore: z.boolean(),
            }),
          }),
          "A page of events",
        ),
        ...errorResponses([400, 500, 503]),
      },
    },
  },
  "/api/v1/webhooks": {
    get: {
      tags: ["Events and webhooks"],
      summary: "Your webhook subscriptions (no secrets)",
      security: sessionOrToken("read"),
      responses: {
        "200": json(envelope(z.array(webhookViewSchema)), "The subscriptions"),
        ...errorResponses([401, 403, 500, 503]),
      },
    },
    post: {
      tags: ["Events and webhooks"],
      summary: "Subscribe an https URL to events (the whsec_ secret only in this answer)",
      security: sessionOrToken("read"),
      requestBody: body(createWebhookSchema),
      responses: {
        "200": json(envelope(webhookViewSchema), "The subscription with its secret"),
        ...errorResponses([...WRITE, 409]),
      },
    },
  },
  "/api/v1/webhooks/{id}": {
    get: {
      tags: ["Events and webhooks"],
      summary: "A subscription of yours",
      security: sessionOrToken("read"),
      requestParams: { path: webhookPath },
      responses: {
        "200": json(envelope(webhookViewSchema), "The subscription"),
        ...errorResponses([400, 401, 403, 404, 500, 503]),
      },
    },
    delete: {
      tags: ["Events and webhooks"],
      summary: "Delete a subscription and its delivery log",
      security: sessionOrToken("read"),
      requestParams: { path: webhookPath },
      responses: {
        "200": json(envelope(webhookViewSchema), "The deleted subscription"),
        ...errorResponses([...WRITE, 404]),
      },
    },
  },
  "/api/v1/webhooks/{id}/deliveries": {
    get: {
      tags: ["Events and webhooks"],
      summary: "The delivery log, newest first",
      security: sessionOrToken("read"),
      requestParams: { path: webhookPath, query: listDeliveriesQuerySchema },
      responses: {
        "200": json(pageEnvelope(webhookDeliveryViewSchema), "A page of deliveries"),
        ...errorResponses([400, 401, 403, 404, 500, 503]),
      },
    },
  },
  "/api/v1/webhooks/{id}/test": {
    post: {
      tags: ["Events and webhooks"],
      summary: "Send a signed webhook.test message now; answers its delivery",
      security: sessionOrToken("read"),
      requestParams: { path: webhookPath },
      responses: {
        "200": json(envelope(webhookDeliveryViewSchema), "The test delivery"),
        ...errorResponses([...WRITE, 404]),
      },
    },
  },
  "/api/v1/webhooks/{id}/enable": {
    post: {
      tags: ["Events and webhooks"],
      summary: "Deliver to a disabled subscription again, from now on",
      security: sessionOrToken("read"),
      requestParams: { path: webhookPath },
      responses: {
        "200": json(envelope(webhookViewSchema), "The subscription, active"),
        ...errorResponses([...WRITE, 404]),
      },
    },
  },
};
