import "server-only";
import { z } from "zod";
import { createAccessToken, listAccessTokens, revokeAccessToken } from "@/lib/auth/access-tokens";
import { readEvents } from "@/lib/events/feed";
import {
  createWebhook,
  deleteWebhook,
  enableWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  sendTestEvent,
} from "@/lib/events/webhooks";
import { listEventsQuerySchema } from "@/lib/shared/schemas/events";
import { createTokenSchema, listTokensQuerySchema } from "@/lib/shared/schemas/tokens";
import { createWebhookSchema, listDeliveriesQuerySchema } from "@/lib/shared/schemas/webhooks";
import {
  accessTokenViewSchema,
  createdAccessTokenViewSchema,
  eventViewSchema,
  webhookDeliveryViewSchema,
  webhookViewSchema,
} from "@/lib/shared/schemas/views";
import {
  answer,
  defineOperation,
  pageAnswer,
  PUBLIC,
  SESSION_ONLY,
  sessionOrToken,
} from "../operation";
import { tokenPath, webhookPath } from "./params";

// For programs: access tokens (browser sessions only), the event feed and webhooks.

export const listTokensOperation = defineOperation({
  id: "listTokens",
  method: "GET",
  path: "/api/v1/tokens",
  tag: "Access tokens",
  summary: "Your access tokens (never their secrets)",
  auth: SESSION_ONLY,
  query: listTokensQuerySchema,
  success: { description: "A page of tokens", data: accessTokenViewSchema, page: true },
  errors: ["session_required", "invalid_cursor"],
  handle: async ({ db, wallet, query }) => pageAnswer(await listAccessTokens(db, wallet, query)),
});

export const createTokenOperation = defineOperation({
  id: "createToken",
  method: "POST",
  path: "/api/v1/tokens",
  tag: "Access tokens",
  summary: "Create a token with scopes and an expiry (browser session only)",
  description: "Its secret is in this answer only. At most 20 live tokens per wallet.",
  auth: SESSION_ONLY,
  body: createTokenSchema,
  success: { description: "The token; its secret only here", data: createdAccessTokenViewSchema },
  errors: ["session_required", "token_limit_reached"],
  handle: async ({ db, wallet, body }) => answer(await createAccessToken(db, wallet, body)),
});

export const revokeTokenOperation = defineOperation({
  id: "revokeToken",
  method: "DELETE",
  path: "/api/v1/tokens/{id}",
  tag: "Access tokens",
  summary: "Revoke a token (browser session only)",
  auth: SESSION_ONLY,
  params: tokenPath,
  success: { description: "The revoked token", data: accessTokenViewSchema },
  errors: ["session_required", "token_not_found"],
  handle: async ({ db, wallet, params }) => answer(await revokeAccessToken(db, wallet, params.id)),
});

export const listEventsOperation = defineOperation({
  id: "listEvents",
  method: "GET",
  path: "/api/v1/events",
  tag: "Events and webhooks",
  summary: "The event feed, oldest first, from a cursor; long-poll with wait",
  auth: PUBLIC,
  query: listEventsQuerySchema,
  success: {
    description: "A page of events",
    data: z.array(eventViewSchema),
    meta: z.object({
      nextCursor: z.string().meta({ description: "Pass it as `after` next time" }),
      hasMore: z.boolean(),
    }),
  },
  errors: ["too_many_long_polls", "cursor_expired"],
  mcp: {
    name: "list_events",
    title: "The event feed",
    description:
      "Events oldest first after the id `after` (0 or latest to start), by types, category or " +
      "job; `nextCursor` is the next `after`. `wait` long-polls up to 30 s (MCP: keep it short).",
    result: "events",
  },
  // Over MCP too, the long-poll's slot is the client address's (not the wallet's: wallets cost
  // nothing) and ends when the MCP request is gone.
  handle: async ({ db, from, query }) => {
    const page = await readEvents(db, query, from);
    return answer(page.items, { nextCursor: page.nextCursor, hasMore: page.hasMore });
  },
});

export const listWebhooksOperation = defineOperation({
  id: "listWebhooks",
  method: "GET",
  path: "/api/v1/webhooks",
  tag: "Events and webhooks",
  summary: "Your webhook subscriptions (no secrets)",
  auth: sessionOrToken("read"),
  success: { description: "The subscriptions", data: z.array(webhookViewSchema) },
  handle: async ({ db, wallet }) => answer(await listWebhooks(db, wallet)),
});

export const createWebhookOperation = defineOperation({
  id: "createWebhook",
  method: "POST",
  path: "/api/v1/webhooks",
  tag: "Events and webhooks",
  summary: "Subscribe an https URL to events (the whsec_ secret only in this answer)",
  auth: sessionOrToken("read"),
  body: createWebhookSchema,
  success: { description: "The subscription with its secret", data: webhookViewSchema },
  errors: ["invalid_webhook_url", "webhook_limit_reached"],
  handle: async ({ db, wallet, body }) => answer(await createWebhook(db, wallet, body)),
});

export const getWebhookOperation = defineOperation({
  id: "getWebhook",
  method: "GET",
  path: "/api/v1/webhooks/{id}",
  tag: "Events and webhooks",
  summary: "A subscription of yours",
  auth: sessionOrToken("read"),
  params: webhookPath,
  success: { description: "The subscription", data: webhookViewSchema },
  errors: ["webhook_not_found"],
  handle: async ({ db, wallet, params }) => answer(await getWebhook(db, wallet, params.id)),
});

export const deleteWebhookOperation = defineOperation({
  id: "deleteWebhook",
  method: "DELETE",
  path: "/api/v1/webhooks/{id}",
  tag: "Events and webhooks",
  summary: "Delete a subscription and its delivery log",
  auth: sessionOrToken("read"),
  params: webhookPath,
  success: { description: "The deleted subscription", data: webhookViewSchema },
  errors: ["webhook_not_found"],
  handle: async ({ db, wallet, params }) => answer(await deleteWebhook(db, wallet, params.id)),
});

export const listDeliveriesOperation = defineOperation({
  id: "listWebhookDeliveries",
  method: "GET",
  path: "/api/v1/webhooks/{id}/deliveries",
  tag: "Events and webhooks",
  summary: "The delivery log, newest first",
  auth: sessionOrToken("read"),
  params: webhookPath,
  query: listDeliveriesQuerySchema,
  success: { description: "A page of deliveries", data: webhookDeliveryViewSchema, page: true },
  errors: ["webhook_not_found", "invalid_cursor"],
  handle: async ({ db, wallet, params, query }) =>
    pageAnswer(await listDeliveries(db, wallet, params.id, query)),
});

export const testWebhookOperation = defineOperation({
  id: "testWebhook",
  method: "POST",
  path: "/api/v1/webhooks/{id}/test",
  tag: "Events and webhooks",
  summary: "Send a signed webhook.test message now; answers its delivery",
  auth: sessionOrToken("read"),
  params: webhookPath,
  success: { description: "The test delivery", data: webhookDeliveryViewSchema },
  errors: ["webhook_not_found"],
  handle: async ({ db, wallet, params }) => answer(await sendTestEvent(db, wallet, params.id)),
});

export const enableWebhookOperation = defineOperation({
  id: "enableWebhook",
  method: "POST",
  path: "/api/v1/webhooks/{id}/enable",
  tag: "Events and webhooks",
  summary: "Deliver to a disabled subscription again, from now on",
  auth: sessionOrToken("read"),
  params: webhookPath,
  success: { description: "The subscription, active", data: webhookViewSchema },
  errors: ["webhook_not_found"],
  handle: async ({ db, wallet, params }) => answer(await enableWebhook(db, wallet, params.id)),
});
