import { getAddress, isAddress } from "viem";
import { z } from "zod";
import { hasUsdcPrecision, MAX_USDC } from "@/lib/payments/money";

/**
 * Every input schema of the API, shared by route handlers and forms. The bounds are the
 * contract's (shared/spec/contract.md, "Envelope and status codes").
 */

export const CATEGORIES = [
  "research",
  "writing",
  "design",
  "engineering",
  "data",
  "trading",
  "ops",
  "marketing",
  "audio",
  "video",
  "image",
  "translation",
  "legal",
  "finance",
  "customer_support",
  "social_media",
  "seo",
  "testing",
  "security",
  "devops",
  "blockchain",
  "education",
  "consulting",
] as const;
export type Category = (typeof CATEGORIES)[number];

/** A category named in a page's URL, or undefined for none or an unknown one. */
export function categoryOrUndefined(value: string | undefined): Category | undefined {
  return (CATEGORIES as readonly string[]).includes(value ?? "") ? (value as Category) : undefined;
}

export const JOB_STATUSES = ["open", "in_progress", "delivered", "completed"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const LIMITS = {
  title: 200,
  description: 20_000,
  message: 5_000,
  comment: 5_000,
  requirements: 50,
  requirement: 500,
  handle: 32,
  agentName: 100,
  agentDescription: 2_000,
  maxDays: 3_650,
  pageSize: 100,
  defaultPageSize: 50,
  attachments: 10,
  attachmentBytes: 5 * 1024 * 1024,
  attachmentsTotalBytes: 10 * 1024 * 1024,
  attachmentName: 255,
  faucetUsdc: 10_000,
} as const;

// Control characters other than tab and newline have no place in user text.
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

function text(field: string, min: number, max: number, { singleLine = false } = {}) {
  return z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(
      min,
      min === 1 ? `${field} must not be empty` : `${field} must be at least ${min} characters`,
    )
    .max(max, `${field} must be at most ${max} characters`)
    .refine((value) => !CONTROL_CHARS.test(value) && !(singleLine && /[\r\n]/.test(value)), {
      error: `${field} contains characters that are not allowed`,
    });
}

function usdcAmount(field: string, max: number = MAX_USDC) {
  return z
    .number({ error: `${field} must be a number` })
    .refine(Number.isFinite, { error: `${field} must be a finite number`, abort: true })
    .refine((value) => value > 0, { error: `${field} must be greater than 0`, abort: true })
    .refine((value) => value <= max, { error: `${field} must be at most ${max}`, abort: true })
    .refine(hasUsdcPrecision, { error: `${field} must have at most 6 decimal places` });
}

function dayCount(field: string) {
  return z
    .number({ error: `${field} must be a number` })
    .int(`${field} must be a whole number of days`)
    .min(1, `${field} must be greater than 0`)
    .max(LIMITS.maxDays, `${field} must be at most ${LIMITS.maxDays}`);
}

function id(field: string) {
  return z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(64, `${field} is not a valid identifier`);
}

export const addressSchema = z
  .string({ error: "address must be a string" })
  .trim()
  .refine((value) => isAddress(value, { strict: false }), { error: "not a valid wallet address" })
  .transform((value) => getAddress(value));

export const txHashSchema = z
  .string({ error: "txHash must be a string" })
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, "txHash must be a 0x-prefixed 32-byte hex transaction hash")
  .transform((value) => value.toLowerCase() as `0x${string}`);

const category = z.enum(CATEGORIES, {
  error: `category must be one of: ${CATEGORIES.join(", ")}`,
});

const rating = z
  .number({ error: "rating must be a number" })
  .int("rating must be a whole number from 1 to 5")
  .min(1, "rating must be from 1 to 5")
  .max(5, "rating must be from 1 to 5");

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

export const createProposalSchema = z.object({
  agentId: id("agentId"),
  bidUsdc: usdcAmount("bidUsdc"),
  etaDays: dayCount("etaDays"),
  message: text("message", 1, LIMITS.message),
});
export type CreateProposalInput = z.infer<typeof createProposalSchema>;

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
    .max(
      LIMITS.attachmentBytes,
      `an attachment may be at most ${LIMITS.attachmentBytes} bytes (5 MiB)`,
    ),
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

export const createReviewSchema = z.object({
  agentId: id("agentId"),
  jobId: id("jobId"),
  rating,
  comment: text("comment", 0, LIMITS.comment),
});
export type CreateReviewInput = z.infer<typeof createReviewSchema>;

export const createAgentSchema = z.object({
  name: text("name", 1, LIMITS.agentName, { singleLine: true }),
  description: text("description", 0, LIMITS.agentDescription).optional().default(""),
  categories: z
    .array(category, { error: "categories must be an array" })
    .min(1, "categories must name at least one category")
    .max(CATEGORIES.length, `categories may name at most ${CATEGORIES.length}`)
    .refine((values) => new Set(values).size === values.length, {
      error: "categories must not repeat",
    }),
  walletAddress: addressSchema.optional(),
});
export type CreateAgentInput = z.infer<typeof createAgentSchema>;

export const siweVerifySchema = z.object({
  message: z.string({ error: "message must be a string" }).min(1).max(4_000, "message is too long"),
  signature: z
    .string({ error: "signature must be a string" })
    .regex(/^0x[0-9a-fA-F]+$/, "signature must be 0x-prefixed hex")
    .max(20_000, "signature is too long"),
});

export const faucetSchema = z.object({
  address: addressSchema,
  amountUsdc: usdcAmount("amountUsdc", LIMITS.faucetUsdc),
});

// Query strings

const limit = z.coerce
  .number({ error: "limit must be a number" })
  .int("limit must be a whole number")
  .min(1, "limit must be from 1 to 100")
  .max(LIMITS.pageSize, "limit must be from 1 to 100")
  .default(LIMITS.defaultPageSize);
const cursor = z.string().max(200, "cursor is not valid").optional();

export const pageQuerySchema = z.object({ limit, cursor });

export const listJobsQuerySchema = z.object({
  status: z
    .enum(JOB_STATUSES, { error: `status must be one of: ${JOB_STATUSES.join(", ")}` })
    .optional(),
  category: category.optional(),
  limit,
  cursor,
});
export type ListJobsQuery = z.infer<typeof listJobsQuerySchema>;

export const listProposalsQuerySchema = z.object({
  status: z
    .enum(["active", "pending", "accepted", "rejected", "all"], {
      error: "status must be one of: pending, accepted, rejected, all",
    })
    .default("active"),
  limit,
  cursor,
});
export type ListProposalsQuery = z.infer<typeof listProposalsQuerySchema>;

export const listAgentsQuerySchema = z.object({ category: category.optional(), limit, cursor });
export type ListAgentsQuery = z.infer<typeof listAgentsQuerySchema>;

export const listReviewsQuerySchema = z.object({
  agentId: z
    .string({ error: "agentId is required" })
    .trim()
    .min(1, "agentId is required")
    .max(64, "agentId is not a valid identifier"),
  limit,
  cursor,
});

export const settleQuerySchema = z.object({
  proposalId: z
    .string({ error: "proposalId is required" })
    .trim()
    .min(1, "proposalId is required")
    .max(64, "proposalId is not a valid identifier"),
});

/** Turns zod issues into one readable sentence for `{ error }`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.filter((part) => typeof part !== "symbol").join(".");
      return issue.message.startsWith(String(issue.path[0] ?? "")) || !path
        ? issue.message
        : `${path}: ${issue.message}`;
    })
    .join("; ");
}
