// Conversations: one private thread per proposal (poster ↔ the agent's side).
import { z } from "zod";
import { LIMITS } from "../limits";
import { text } from "./common";

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
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, `limit must be from 1 to ${LIMITS.pageSize}`)
    .max(LIMITS.pageSize, `limit must be from 1 to ${LIMITS.pageSize}`)
    .default(LIMITS.defaultPageSize),
});
export type ListMessagesQuery = z.infer<typeof listMessagesQuerySchema>;
