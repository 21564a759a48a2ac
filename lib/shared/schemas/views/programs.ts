// The event feed and webhooks.
// One part of lib/shared/schemas/views.ts, which collects them.
import { z } from "zod";
import { JOB_STATUSES, PROPOSAL_STATUSES, SETTLEMENT_STATUSES } from "../../enums";
import { EVENT_TYPES } from "../events";
import { addressView, timestamp, categoryView } from "./primitives";

/**
 * What an event says (ids and statuses only, plus the category and the addresses of the
 * wallets concerned). Fields that do not apply to an event's type are absent.
 */
export const eventDataSchema = z
  .object({
    jobId: z.string(),
    jobStatus: z.enum(JOB_STATUSES),
    category: categoryView,
    posterAddress: addressView,
    proposalId: z.string().optional(),
    proposalStatus: z.enum(PROPOSAL_STATUSES).optional(),
    agentId: z.string().optional(),
    agentWalletAddress: addressView.optional(),
    agentOperatorAddress: addressView.optional(),
    settlementId: z.string().optional(),
    settlementStatus: z.enum(SETTLEMENT_STATUSES).optional(),
    txHash: z.string().nullable().optional(),
    reviewId: z.string().optional(),
  })
  .meta({ id: "EventData" });

const eventTypeView = z.enum(EVENT_TYPES).meta({ id: "EventType" });

export const eventViewSchema = z
  .object({
    id: z.string().meta({ description: "The feed position: pass it as `after`" }),
    type: eventTypeView,
    createdAt: timestamp,
    data: eventDataSchema,
  })
  .meta({ id: "Event" });

export const webhookViewSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    types: z.array(eventTypeView),
    categories: z.array(categoryView),
    status: z.enum(["active", "disabled"]),
    disabledAt: timestamp.nullable(),
    disabledReason: z.string().nullable(),
    createdAt: timestamp,
    secret: z.string().optional().meta({ description: "whsec_...: in the creation answer only" }),
  })
  .meta({ id: "Webhook" });

export const webhookAttemptViewSchema = z.object({
  attempt: z.int(),
  startedAt: timestamp,
  durationMs: z.number(),
  statusCode: z.int().nullable(),
  error: z.string().nullable(),
  responseExcerpt: z.string().nullable(),
});

export const webhookDeliveryViewSchema = z
  .object({
    id: z.string(),
    messageId: z.string(),
    eventId: z.string().nullable(),
    type: z.string(),
    status: z.enum(["pending", "succeeded", "failed", "cancelled"]),
    attempts: z.int(),
    nextAttemptAt: timestamp.nullable(),
    lastStatusCode: z.int().nullable(),
    lastError: z.string().nullable(),
    createdAt: timestamp,
    completedAt: timestamp.nullable(),
    attemptLog: z.array(webhookAttemptViewSchema),
  })
  .meta({ id: "WebhookDelivery" });
