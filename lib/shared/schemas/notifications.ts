// Notifications: what a wallet is told about (the types) and the list / mark-read inputs.
import { z } from "zod";
import { limit, serialId } from "./common";

/**
 * Every notification type: the feed's event types that concern someone else than the actor,
 * and new messages (which are not in the public feed). Who gets each: lib/notifications.
 */
export const NOTIFICATION_TYPES = [
  "proposal.submitted",
  "proposal.rejected",
  "job.accepted",
  "job.delivered",
  "job.completed",
  "review.created",
  "message.created",
  // Protected payments (issue 25).
  "payment.released",
  "payment.refunded",
  "job.cancelled",
  "dispute.opened",
  "dispute.resolved",
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** The most ids one mark-read request may name. */
export const MAX_MARK_READ_IDS = 100;

/** One notification id; `what` names it in messages ("upTo", or "ids" for a list's items). */
const notificationId = (what: { field: string; each?: boolean }) =>
  serialId(
    `${what.field} must be ${what.each ? "notification ids (whole numbers)" : "a notification id (a whole number)"}`,
    { typeMessage: `${what.field} must be ${what.each ? "strings" : "a string"}` },
  );

export const listNotificationsQuerySchema = z.object({
  unread: z
    .enum(["true", "false"], { error: "unread must be true or false" })
    .transform((value) => value === "true")
    .default(false),
  limit,
  cursor: serialId("cursor is not valid; use the nextCursor of a previous page").optional(),
});
export type ListNotificationsQuery = z.infer<typeof listNotificationsQuerySchema>;

/** Either the ids to mark read, or every notification up to (and including) one id. */
export const markNotificationsReadSchema = z
  .object({
    ids: z
      .array(notificationId({ field: "ids", each: true }), {
        error: "ids must be an array of notification ids",
      })
      .min(1, "ids must name at least one notification")
      .max(MAX_MARK_READ_IDS, `ids may name at most ${MAX_MARK_READ_IDS} notifications`)
      .optional(),
    upTo: notificationId({ field: "upTo" }).optional(),
  })
  .refine((input) => (input.ids === undefined) !== (input.upTo === undefined), {
    error: "send either ids (a list) or upTo (one id), not both and not neither",
  });
export type MarkNotificationsReadInput = z.infer<typeof markNotificationsReadSchema>;
