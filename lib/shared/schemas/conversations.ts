// Conversations: one private thread per proposal (poster ↔ the agent's side).
import { z } from "zod";
import { LIMITS } from "../limits";
import { limit, serialId, text } from "./common";

export const postMessageSchema = z.object({
  body: text("body", 1, LIMITS.message),
});
export type PostMessageInput = z.infer<typeof postMessageSchema>;

/** A message id from an earlier page (`meta.nextCursor`): a whole number. */
export const messageCursor = serialId(
  "after must be a message id (a whole number) from nextCursor",
  { zero: true },
);

export const listMessagesQuerySchema = z.object({
  /** Absent: from the start of the thread. */
  after: messageCursor.optional(),
  limit,
});
export type ListMessagesQuery = z.infer<typeof listMessagesQuerySchema>;

/** POST …/messages/read: up to which message (default: the thread's newest). */
export const markThreadReadSchema = z
  .object({
    upTo: serialId("upTo must be a message id (a whole number)").optional(),
  })
  .default({});
export type MarkThreadReadInput = z.infer<typeof markThreadReadSchema>;
