// Jobs: create, list, accept, deliver (attachments), complete.
import { z } from "zod";
import { JOB_STATUSES } from "../enums";
import { LIMITS } from "../limits";
import {
  category,
  cursor,
  dayCount,
  id,
  limit,
  rating,
  text,
  txHashSchema,
  usdcAmount,
  walletAddress,
} from "./common";

export const createJobSchema = z.object({
  title: text("title", 1, LIMITS.title, { singleLine: true }),
  description: text("description", 1, LIMITS.description),
  category,
  budgetUsdc: usdcAmount("budgetUsdc"),
  timelineDays: dayCount("timelineDays"),
  requirements: z
    .array(text("each requirement", 1, LIMITS.requirement), {
      error: "requirements must be an array of strings",
    })
    .max(LIMITS.requirements, `requirements may have at most ${LIMITS.requirements} items`)
    .optional()
    .default([]),
  handle: text("handle", 1, LIMITS.handle, { singleLine: true }).optional(),
});
export type CreateJobInput = z.infer<typeof createJobSchema>;

export const acceptSchema = z.object({
  proposalId: id("proposalId"),
  txHash: txHashSchema,
});
export type AcceptInput = z.infer<typeof acceptSchema>;

export const attachmentSchema = z.object({
  name: text("attachment name", 1, LIMITS.attachmentName, { singleLine: true }).refine(
    (value) => !/[\\/]/.test(value),
    { error: "attachment name must not contain slashes" },
  ),
  size: z
    .number({ error: "attachment size must be a number" })
    .int("attachment size must be a whole number of bytes")
    .min(0, "attachment size must not be negative")
    // mutant: deliver-5-mib-per-file-cap
    .max(
      LIMITS.attachmentBytes,
      `an attachment may be at most ${LIMITS.attachmentBytes} bytes (5 MiB)`,
    ),
  // mutant end
  type: z
    .string({ error: "attachment type must be a string" })
    .trim()
    .toLowerCase()
    .regex(
      /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/,
      "attachment type must be a media type such as text/plain",
    ),
  dataUrl: z.string({ error: "attachment dataUrl must be a string" }),
});
export type AttachmentInput = z.infer<typeof attachmentSchema>;

export const deliverSchema = z
  .object({
    attachments: z
      .array(attachmentSchema, { error: "attachments must be an array" })
      .max(LIMITS.attachments, `at most ${LIMITS.attachments} attachments`)
      .optional()
      .default([]),
  })
  .default({ attachments: [] });
export type DeliverInput = z.infer<typeof deliverSchema>;

export const completeSchema = z
  .object({
    rating: rating.optional(),
    comment: text("comment", 0, LIMITS.comment).optional(),
  })
  .refine((value) => value.comment === undefined || value.rating !== undefined, {
    error: "rating is required when a comment is given",
  })
  .default({});
export type CompleteInput = z.infer<typeof completeSchema>;

/** A dispute on a protected payment: why, for the admin who resolves it. */
export const disputeSchema = z.object({
  reason: text("reason", 1, 2000),
});
export type DisputeInput = z.infer<typeof disputeSchema>;

/** An admin's decision on a dispute: release, refund, or split (agentUsdc to the agent). */
export const resolveDisputeSchema = z
  .object({
    outcome: z.enum(["release", "refund", "split"], {
      error: "outcome must be release, refund or split",
    }),
    agentUsdc: usdcAmount("agentUsdc").optional(),
    reason: text("reason", 1, 2000),
  })
  .refine((value) => (value.outcome === "split") === (value.agentUsdc !== undefined), {
    error: "agentUsdc is required for a split, and only for a split",
  });
export type ResolveDisputeInput = z.infer<typeof resolveDisputeSchema>;

export const JOB_SORTS = ["newest", "budget_desc", "budget_asc", "relevance"] as const;
export type JobSort = (typeof JOB_SORTS)[number];

const budgetBound = (field: string) =>
  z.coerce
    .number({ error: `${field} must be a number` })
    .pipe(usdcAmount(field))
    .optional()
    .meta({ description: `${field}: USDC, inclusive` });

export const listJobsQuerySchema = z
  .object({
    status: z
      .enum(JOB_STATUSES, { error: `status must be one of: ${JOB_STATUSES.join(", ")}` })
      .optional(),
    category: category.optional(),
    poster: walletAddress("poster")
      .optional()
      .meta({ description: "Only the jobs this wallet posted (0x address)" }),
    q: text("q", 1, LIMITS.searchQuery, { singleLine: true })
      .refine((value) => /[\p{L}\p{N}]/u.test(value), {
        error: "q must contain a word to search for (letters or digits)",
      })
      .optional()
      .meta({ description: "Words to find in title, description and requirements (ranked)" }),
    minBudgetUsdc: budgetBound("minBudgetUsdc"),
    maxBudgetUsdc: budgetBound("maxBudgetUsdc"),
    sort: z
      .enum(JOB_SORTS, { error: `sort must be one of: ${JOB_SORTS.join(", ")}` })
      .optional()
      .meta({ description: "Default: relevance with q, else newest" }),
    limit,
    cursor,
  })
  .refine((query) => query.sort !== "relevance" || query.q !== undefined, {
    error: "sort=relevance needs q",
  })
  .refine(
    (query) =>
      query.minBudgetUsdc === undefined ||
      query.maxBudgetUsdc === undefined ||
      query.minBudgetUsdc <= query.maxBudgetUsdc,
    { error: "minBudgetUsdc must not be more than maxBudgetUsdc" },
  );
export type ListJobsQuery = z.infer<typeof listJobsQuerySchema>;
