// The event feed: event types and the query of GET /api/v1/events.
import { z } from "zod";
import { category, filterId } from "./common";

/** Every event the marketplace writes, one per transition (lib/marketplace/lifecycle.ts). */
export const EVENT_TYPES = [
  "job.created",
  "proposal.submitted",
  "proposal.rejected",
  "payment.settled",
  "job.accepted",
  "job.delivered",
  "job.completed",
  "review.created",
  // Protected payments (issue 25): held on pay, then released to the agent or refunded to the
  // poster; a dispute freezes the hold until an admin resolves it.
  "payment.held",
  "payment.released",
  "payment.refunded",
  "job.cancelled",
  "dispute.opened",
  "dispute.resolved",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const eventType = z.enum(EVENT_TYPES, {
  error: `each type must be one of: ${EVENT_TYPES.join(", ")}`,
});

/** The most a long-poll may wait, in seconds. */
export const MAX_WAIT_SECONDS = 30;

/** Stands for the feed's head at the time of the request (`after=latest`). */
export const LATEST = -1n;

/**
 * A feed position: the id of the last event seen (a decimal string from `nextCursor`), `0`
 * for the start, or `latest` for "from now on".
 */
export const eventCursor = z
  .string()
  .trim()
  .regex(
    /^(0|[1-9][0-9]{0,18}|latest)$/,
    "after must be an event id (a whole number) from nextCursor, or latest",
  )
  .transform((value) => (value === "latest" ? LATEST : BigInt(value)))
  .refine((value) => value <= 9_223_372_036_854_775_807n, { error: "after is out of range" });

/** `types=a,b` (comma-separated, repeated names ignored). */
export const eventTypeList = z
  .string()
  .trim()
  .transform((value) => value.split(",").map((part) => part.trim()))
  .pipe(z.array(eventType).max(EVENT_TYPES.length))
  .transform((types) => [...new Set(types)]);

export const listEventsQuerySchema = z.object({
  after: eventCursor.default(0n),
  types: eventTypeList.optional(),
  category: category.optional(),
  jobId: filterId("jobId").optional(),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be from 1 to 100")
    .max(100, "limit must be from 1 to 100")
    .default(50),
  wait: z.coerce
    .number({ error: "wait must be a number of seconds" })
    .int("wait must be a whole number of seconds")
    .min(0, `wait must be from 0 to ${MAX_WAIT_SECONDS} seconds`)
    .max(MAX_WAIT_SECONDS, `wait must be from 0 to ${MAX_WAIT_SECONDS} seconds`)
    .default(0),
});
export type ListEventsQuery = z.infer<typeof listEventsQuerySchema>;
