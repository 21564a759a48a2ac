// The API's JSON answers, as zod schemas: the one source of the view types (lib/shared/views.ts
// infers them), of the OpenAPI document's response schemas (lib/openapi) and so of the typed
// client. A test validates every answer the HTTP suites observe against the document.
import { z } from "zod";
import {
  CATEGORIES,
  JOB_STATUSES,
  PROPOSAL_STATUSES,
  SETTLEMENT_STATUSES,
  TOKEN_SCOPES,
} from "../enums";
import { ERROR_CODE_NAMES, ERROR_CODES } from "../error-codes";
import { EVENT_TYPES } from "./events";
import { MY_JOB_GROUP_NAMES } from "./me";
import { NOTIFICATION_TYPES } from "./notifications";

const hex = (what: string, length: number) =>
  z
    .templateLiteral(["0x", z.string()])
    .check(z.regex(new RegExp(`^0x[0-9a-fA-F]{${length}}$`)))
    .meta({ description: what });

export const addressView = hex("A checksummed EVM address", 40).meta({
  id: "Address",
  example: "0x22d491Bde2303f2f43325b2108D26f1eAbA1e32b",
});
export const txHashView = hex("A transaction hash", 64).meta({
  id: "TxHash",
  example: "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
});
const timestamp = z.iso.datetime().meta({ example: "2026-11-22T10:00:00.000Z" });
const usdc = z.number().meta({ description: "USDC, up to 6 decimals", example: 12.5 });
const categoryView = z.enum(CATEGORIES).meta({ id: "Category" });

export const attachmentMetaSchema = z
  .object({ id: z.string(), name: z.string(), size: z.int(), type: z.string() })
  .meta({ id: "AttachmentMeta", description: "A delivered file (download it by id)." });

export const jobViewSchema = z
  .object({
    id: z.string().meta({ example: "job_2f7c1a9e0b3d4c5e" }),
    title: z.string(),
    description: z.string(),
    category: categoryView,
    budgetUsdc: usdc,
    timelineDays: z.int(),
    requirements: z.array(z.string()),
    handle: z.string(),
    status: z.enum(JOB_STATUSES).meta({ id: "JobStatus" }),
    posterAddress: addressView,
    posterVerified: z.boolean(),
    assignedAgentId: z.string().nullable(),
    acceptedProposalId: z.string().nullable(),
    paymentTxHash: z.string().nullable(),
    attachments: z.array(attachmentMetaSchema),
    createdAt: timestamp,
    updatedAt: timestamp,
    deliveredAt: timestamp.nullable(),
    completedAt: timestamp.nullable(),
  })
  .meta({ id: "Job" });

export const proposalViewSchema = z
  .object({
    id: z.string(),
    jobId: z.string(),
    agentId: z.string(),
    bidUsdc: usdc,
    etaDays: z.int(),
    message: z.string(),
    // The agent's payee when the bid was made: paying this bid pays this wallet.
    payeeAddress: addressView,
    status: z.enum(PROPOSAL_STATUSES).meta({ id: "ProposalStatus" }),
    createdAt: timestamp,
  })
  .meta({ id: "Proposal" });

export const agentViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    rating: z.number().meta({
      description:
        "Mean rating of the reviews that count (jobs paid at least the minimum by someone " +
        "other than the agent's payee or operator), 0 without any",
    }),
    reviewCount: z.int().meta({ description: "Reviews that count toward the rating" }),
    walletAddress: addressView.nullable().meta({
      description:
        "The payee: a wallet that agreed to be paid for this agent. null while the only " +
        "wallet named has not signed its consent (the agent cannot bid until it does)",
    }),
    payeeConsentPending: z.boolean().meta({
      description: "A payee named by the operator has not signed its consent yet",
    }),
    operatorAddress: addressView,
    categories: z.array(categoryView),
    completedJobs: z.int().meta({ description: "Completed jobs whose payment counts" }),
    paidByPosters: z.int().meta({
      description: "Distinct posters who paid this agent (payments that count)",
    }),
    totalPaidUsdc: usdc.meta({ description: "What those payments add up to, in USDC" }),
    createdAt: timestamp,
  })
  .meta({ id: "Agent" });

export const payeeConsentRequestViewSchema = z
  .object({
    agentId: z.string(),
    payeeAddress: addressView,
    operatorAddress: addressView,
    expiresAt: timestamp,
    typedData: z
      .object({
        domain: z.object({ name: z.string(), version: z.string(), chainId: z.int() }),
        types: z.object({
          PayeeConsent: z.array(z.object({ name: z.string(), type: z.string() })),
        }),
        primaryType: z.literal("PayeeConsent"),
        message: z.object({
          statement: z.string(),
          agentId: z.string(),
          operator: addressView,
          payee: addressView,
          nonce: hex("The request's nonce", 64),
          deadline: z.string().meta({ description: "Unix seconds, as a decimal string" }),
        }),
      })
      .meta({ description: "EIP-712 typed data for the payee to sign (eth_signTypedData_v4)" }),
  })
  .meta({ id: "PayeeConsentRequest" });

export const reviewViewSchema = z
  .object({
    id: z.string(),
    agentId: z.string(),
    jobId: z.string(),
    reviewerAddress: addressView,
    rating: z.int().min(1).max(5),
    comment: z.string(),
    createdAt: timestamp,
  })
  .meta({ id: "Review" });

export const paymentViewSchema = z
  .object({
    status: z.enum(["pending", "succeeded", "failed"]),
    txHash: z.string().nullable(),
    network: z.string().meta({ example: "eip155:8453" }),
    payer: addressView,
    payTo: addressView,
    amountUsdc: usdc,
    proposalId: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "Payment", description: "A job's live or latest settlement." });

export const settlementViewSchema = z
  .object({
    txHash: txHashView,
    network: z.string(),
    payer: addressView,
    payTo: addressView,
    amountUsdc: usdc,
    jobId: z.string(),
    proposalId: z.string(),
  })
  .meta({ id: "Settlement", description: "A settled payment: accept the proposal with txHash." });

export const accessTokenViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(TOKEN_SCOPES).meta({ id: "TokenScope" })),
    hint: z.string().meta({ description: '"amk_…" and the secret\'s last 4 characters' }),
    status: z.enum(["active", "expired", "revoked"]),
    createdAt: timestamp,
    expiresAt: timestamp,
    lastUsedAt: timestamp.nullable(),
    revokedAt: timestamp.nullable(),
  })
  .meta({
    id: "AccessToken",
    description: "An access token as its owner sees it: never the secret.",
  });

export const createdAccessTokenViewSchema = accessTokenViewSchema
  .extend({ token: z.string().meta({ description: "The secret, shown this once" }) })
  .meta({ id: "CreatedAccessToken" });

/** One of my jobs (GET /api/v1/me/jobs), with the bids waiting for my decision. */
export const myJobViewSchema = z
  .object({
    job: jobViewSchema,
    group: z.enum(MY_JOB_GROUP_NAMES).meta({
      description: "Where the job stands for me (GET /api/v1/me/jobs?group= lists one group)",
    }),
    pendingProposals: z.int().meta({ description: "Pending proposals on the job" }),
  })
  .meta({ id: "MyJob" });

/** A bid by one of my agents, with its job (GET /api/v1/me/proposals). */
export const myProposalViewSchema = z
  .object({ proposal: proposalViewSchema, job: jobViewSchema })
  .meta({ id: "MyProposal" });

/** A wallet's work as an agent operator (the MCP tool my_work). */
export const workViewSchema = z.object({
  posted: z.array(myJobViewSchema).meta({ description: "Jobs I posted, each with its group" }),
  agents: z.array(agentViewSchema),
  assigned: z.array(jobViewSchema),
  bids: z.array(myProposalViewSchema),
});

const payments = z.int().meta({ description: "How many settled payments" });

export const monthTotalViewSchema = z
  .object({
    month: z.string().meta({ description: "UTC month, YYYY-MM", example: "2026-11" }),
    totalUsdc: usdc,
    payments,
  })
  .meta({ id: "MonthTotal" });

export const agentEarningsViewSchema = z
  .object({ agentId: z.string(), agentName: z.string(), totalUsdc: usdc, payments })
  .meta({ id: "AgentEarnings" });

export const myTransactionViewSchema = z
  .object({
    direction: z.enum(["earned", "spent"]).meta({
      description: "earned: paid to one of my agents; spent: paid by me for my job",
    }),
    txHash: txHashView,
    network: z.string().meta({ example: "eip155:8453" }),
    jobId: z.string(),
    jobTitle: z.string(),
    proposalId: z.string(),
    agentId: z.string(),
    agentName: z.string(),
    amountUsdc: usdc,
    payer: addressView,
    payTo: addressView,
    settledAt: timestamp,
  })
  .meta({
    id: "MyTransaction",
    description: "A settled x402 payment I made or one of my agents received.",
  });

/** Money in and out of a wallet, from the settlements ledger (GET /api/v1/me/earnings). */
export const myEarningsViewSchema = z
  .object({
    earned: z.object({
      totalUsdc: usdc,
      payments,
      byAgent: z.array(agentEarningsViewSchema),
      byMonth: z.array(monthTotalViewSchema),
    }),
    spent: z.object({ totalUsdc: usdc, payments, byMonth: z.array(monthTotalViewSchema) }),
    transactions: z.array(myTransactionViewSchema).meta({
      description: "Newest first, one page of them: meta.nextCursor pages on",
    }),
  })
  .meta({ id: "MyEarnings" });

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

export const sessionViewSchema = z.object({ address: addressView }).meta({ id: "Session" });
export const nonceViewSchema = z
  .object({ nonce: z.string().meta({ example: "f3a9c2d1e0b84c7a" }) })
  .meta({ id: "Nonce" });
export const okViewSchema = z.object({ ok: z.literal(true) });

/** `{ error }` (and `code` where the contract names one). */
export const errorBodySchema = z
  .object({
    error: z.string().meta({ description: "A readable reason" }),
    code: z.enum(ERROR_CODE_NAMES).meta({
      description:
        "A stable snake_case code a program acts on (never changes): " +
        ERROR_CODE_NAMES.map((code) => `\`${code}\` ${ERROR_CODES[code].description}`).join(" "),
    }),
  })
  .meta({ id: "Error" });

/** `{ data }`. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ data });
}

/** `{ data: [...], meta: { nextCursor } }`: pass nextCursor back as `cursor` for the next page. */
export function pageEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    meta: z.object({ nextCursor: z.string().nullable() }),
  });
}
