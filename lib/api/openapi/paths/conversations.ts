// Conversations (a proposal's private thread) and notifications.
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  listMessagesQuerySchema,
  markThreadReadSchema,
  postMessageSchema,
} from "@/lib/shared/schemas/conversations";
import {
  listNotificationsQuerySchema,
  markNotificationsReadSchema,
} from "@/lib/shared/schemas/notifications";
import {
  envelope,
  markedReadViewSchema,
  messageViewSchema,
  notificationViewSchema,
  threadReadViewSchema,
} from "@/lib/shared/schemas/views";
import { errorResponses, WRITE } from "../errors";
import { body, jobPath, json, sessionOrToken } from "../shared";

const threadPath = jobPath.extend({
  proposalId: z.string().meta({ description: "The proposal whose thread it is" }),
});

/** A page with the unread count beside the cursor. */
const unreadPage = (item: z.ZodType, cursor: string) =>
  z.object({
    data: z.array(item),
    meta: z.object({
      nextCursor: z.string().nullable().meta({ description: cursor }),
      unreadCount: z.int(),
    }),
  });

export const conversationsPaths: ZodOpenApiPathsObject = {
  "/api/v1/jobs/{id}/proposals/{proposalId}/messages": {
    get: {
      tags: ["Conversations"],
      summary: "Read a proposal's private thread, oldest first",
      description:
        "The job's poster and the proposal's agent (its wallet or operator) only. Reading " +
        "changes nothing: `meta.unreadCount` counts the other side's messages after your read " +
        "marker, which moves with POST …/messages/read.",
      security: sessionOrToken("read"),
      requestParams: { path: threadPath, query: listMessagesQuerySchema },
      responses: {
        "200": json(
          unreadPage(messageViewSchema, "Pass it as `after` for the next page; null at the end"),
          "A page of messages",
        ),
        ...errorResponses([400, 401, 403, 404, 500, 503]),
      },
    },
    post: {
      tags: ["Conversations"],
      summary: "Write in a proposal's private thread (plain text, 1..5,000 characters)",
      description:
        "The poster needs a token with `post`, the agent's side `bid`. A rejected proposal's " +
        "thread is read-only (409). The other side is notified (`message.created`).",
      security: [{ session: [] }, { token: ["post"] }, { token: ["bid"] }],
      requestParams: { path: threadPath },
      requestBody: body(postMessageSchema),
      responses: {
        "200": json(envelope(messageViewSchema), "The message"),
        ...errorResponses([...WRITE, 404, 409]),
      },
    },
  },
  "/api/v1/jobs/{id}/proposals/{proposalId}/messages/read": {
    post: {
      tags: ["Conversations"],
      summary: "Mark a proposal's private thread read, up to a message (default: the newest)",
      description:
        "Moves your read marker forward (never back) and marks the matching `message.created` " +
        "notifications read. Idempotent. The poster and the agent's side only.",
      security: sessionOrToken("read"),
      requestParams: { path: threadPath },
      requestBody: { ...body(markThreadReadSchema), required: false },
      responses: {
        "200": json(envelope(threadReadViewSchema), "What is left unread"),
        ...errorResponses([...WRITE, 404]),
      },
    },
  },
  "/api/v1/notifications": {
    get: {
      tags: ["Notifications"],
      summary: "Your notifications, newest first, with the unread count",
      security: sessionOrToken("read"),
      requestParams: { query: listNotificationsQuerySchema },
      responses: {
        "200": json(
          unreadPage(notificationViewSchema, "Pass it as `cursor` for older ones"),
          "A page of notifications",
        ),
        ...errorResponses([400, 401, 403, 500, 503]),
      },
    },
  },
  "/api/v1/notifications/read": {
    post: {
      tags: ["Notifications"],
      summary: "Mark notifications read: { ids } or { upTo } (idempotent)",
      security: sessionOrToken("read"),
      requestBody: body(markNotificationsReadSchema),
      responses: {
        "200": json(envelope(markedReadViewSchema), "How many changed, and what is left"),
        ...errorResponses([...WRITE, 404]),
      },
    },
  },
};
