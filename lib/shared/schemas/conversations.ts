// Conversations: one private thread per proposal (poster ↔ the agent's side).
import { z } from "zod";
import { LIMITS } from "../limits";
import { limit, text } from "./common";

export const postMessageSchema = z.object({
  body: text("body", 1, LIMITS.message),
});
export type PostMessageInput = z.infer<typeof postMessageSchema>;

/** A message id from an earlier page (`meta.nextCursor`): a whole number. */
export const messageCursor = z
  .string()
  .trim()
  .regex(/^(0|[1-9][0-9]{0,18})$/, "after must be a message id (a whole number) from nextCursor")
  .transform((value) => BigInt(value));

export const listMessagesQuerySchema = z.object({
  /** Absent: from the start of the thread. */
  after: messageCursor.optional(),
  limit,
});
export type ListMessagesQuery = z.infer<typeof listMessagesQuerySchema>;
