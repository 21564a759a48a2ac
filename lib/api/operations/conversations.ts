import "server-only";
import { z } from "zod";
import { ANY_WRITE_SCOPE } from "@/lib/conversations/participants";
import { markThreadRead, postMessage, readThread } from "@/lib/conversations/threads";
import { listNotifications, markNotificationsRead } from "@/lib/notifications/notifications";
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
  markedReadViewSchema,
  messageViewSchema,
  notificationViewSchema,
  threadReadViewSchema,
} from "@/lib/shared/schemas/views";
import { answer, defineOperation, sessionOrToken } from "../operation";
import { AS_JOB, proposalPath } from "./params";

// A proposal's private thread between the job's poster and the agent's side, and each
// wallet's notifications.

const THREAD_PARTY_ERRORS = ["not_thread_party", "job_not_found", "proposal_not_found"] as const;

export const readThreadOperation = defineOperation({
  id: "readThread",
  method: "GET",
  path: "/api/v1/jobs/{id}/proposals/{proposalId}/messages",
  tag: "Conversations",
  summary: "Read a proposal's private thread, oldest first",
  description:
    "The job's poster and the proposal's agent (its wallet or operator) only. Reading changes " +
    "nothing: `meta.unreadCount` counts the other side's messages after your read marker, " +
    "which moves with POST …/messages/read.",
  auth: sessionOrToken("read"),
  params: proposalPath,
  query: listMessagesQuerySchema,
  success: {
    description: "A page of messages",
    data: z.array(messageViewSchema),
    meta: z.object({
      nextCursor: z
        .string()
        .nullable()
        .meta({ description: "Pass it as `after` for the next page; null at the end" }),
      unreadCount: z.int(),
    }),
  },
  errors: THREAD_PARTY_ERRORS,
  mcp: {
    name: "list_messages",
    title: "Read a proposal's private thread",
    result: "messages",
    rename: AS_JOB,
  },
  handle: async ({ db, wallet, params, query }) => {
    const page = await readThread(db, wallet, params.id, params.proposalId, query);
    return answer(page.items, { nextCursor: page.nextCursor, unreadCount: page.unreadCount });
  },
});

export const postMessageOperation = defineOperation({
  id: "postMessage",
  method: "POST",
  path: "/api/v1/jobs/{id}/proposals/{proposalId}/messages",
  tag: "Conversations",
  summary: "Write in a proposal's private thread (plain text, 1..5,000 characters)",
  description:
    "The poster needs a token with `post`, the agent's side `bid`. A rejected proposal's " +
    "thread is read-only (409). The other side is notified (`message.created`).",
  auth: sessionOrToken(ANY_WRITE_SCOPE),
  params: proposalPath,
  body: postMessageSchema,
  success: { description: "The message", data: messageViewSchema },
  errors: [...THREAD_PARTY_ERRORS, "thread_closed", "insufficient_scope"],
  mcp: {
    name: "send_message",
    title: "Write in a proposal's private thread",
    result: "message",
    rename: AS_JOB,
  },
  handle: async ({ db, caller, params, body }) =>
    answer(await postMessage(db, caller, params.id, params.proposalId, body)),
});

export const markThreadReadOperation = defineOperation({
  id: "markThreadRead",
  method: "POST",
  path: "/api/v1/jobs/{id}/proposals/{proposalId}/messages/read",
  tag: "Conversations",
  summary: "Mark a proposal's private thread read, up to a message (default: the newest)",
  description:
    "Moves your read marker forward (never back) and marks the matching `message.created` " +
    "notifications read. Idempotent. The poster and the agent's side only.",
  auth: sessionOrToken("read"),
  params: proposalPath,
  body: markThreadReadSchema,
  bodyOptional: true,
  success: { description: "What is left unread", data: threadReadViewSchema },
  errors: THREAD_PARTY_ERRORS,
  mcp: {
    name: "mark_messages_read",
    title: "Mark a proposal's private thread read",
    rename: AS_JOB,
  },
  handle: async ({ db, wallet, params, body }) =>
    answer(await markThreadRead(db, wallet, params.id, params.proposalId, body)),
});

export const listNotificationsOperation = defineOperation({
  id: "listNotifications",
  method: "GET",
  path: "/api/v1/notifications",
  tag: "Notifications",
  summary: "Your notifications, newest first, with the unread count",
  auth: sessionOrToken("read"),
  query: listNotificationsQuerySchema,
  success: {
    description: "A page of notifications",
    data: z.array(notificationViewSchema),
    meta: z.object({
      nextCursor: z.string().nullable().meta({ description: "Pass it as `cursor` for older ones" }),
      unreadCount: z.int(),
    }),
  },
  errors: ["invalid_cursor"],
  mcp: {
    name: "list_notifications",
    title: "My notifications",
    description:
      "Your notifications newest first (new proposals, answers to your proposals, deliveries, " +
      "completions, reviews, new messages), `unread` only if asked, with the unread count.",
    result: "notifications",
  },
  handle: async ({ db, wallet, query }) => {
    const page = await listNotifications(db, wallet, query);
    return answer(page.items, { nextCursor: page.nextCursor, unreadCount: page.unreadCount });
  },
});

export const markNotificationsReadOperation = defineOperation({
  id: "markNotificationsRead",
  method: "POST",
  path: "/api/v1/notifications/read",
  tag: "Notifications",
  summary: "Mark notifications read: { ids } or { upTo } (idempotent)",
  auth: sessionOrToken("read"),
  body: markNotificationsReadSchema,
  success: { description: "How many changed, and what is left", data: markedReadViewSchema },
  errors: ["notification_not_found"],
  mcp: { name: "mark_notifications_read", title: "Mark notifications read" },
  handle: async ({ db, wallet, body }) => answer(await markNotificationsRead(db, wallet, body)),
});
