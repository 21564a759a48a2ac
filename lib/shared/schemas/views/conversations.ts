// Threads' messages and notifications.
// One part of lib/shared/schemas/views.ts, which collects them.
import { z } from "zod";
import { NOTIFICATION_TYPES } from "../notifications";
import { addressView, timestamp } from "./primitives";

export const messageViewSchema = z
  .object({
    id: z.string().meta({ description: "Position in the thread: pass it as `after`" }),
    jobId: z.string(),
    proposalId: z.string(),
    senderAddress: addressView,
    side: z
      .enum(["poster", "agent"])
      .meta({ description: "Whether the job's poster or the agent's side wrote it" }),
    body: z.string(),
    createdAt: timestamp,
  })
  .meta({ id: "Message", description: "A message of a proposal's private thread." });

export const threadReadViewSchema = z
  .object({
    unreadCount: z.int().meta({ description: "Messages from the other side still unread" }),
  })
  .meta({ id: "ThreadRead" });

export const notificationViewSchema = z
  .object({
    id: z.string().meta({ description: "Newer notifications have larger ids" }),
    type: z.enum(NOTIFICATION_TYPES).meta({ id: "NotificationType" }),
    jobId: z.string(),
    jobTitle: z.string(),
    proposalId: z.string().nullable(),
    reviewId: z.string().nullable(),
    messageId: z.string().nullable(),
    read: z.boolean(),
    createdAt: timestamp,
  })
  .meta({ id: "Notification" });

export const markedReadViewSchema = z
  .object({
    marked: z.int().meta({ description: "How many were unread and are read now" }),
    unreadCount: z.int(),
  })
  .meta({ id: "MarkedRead" });
