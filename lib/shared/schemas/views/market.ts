// Jobs, proposals, agents, payee consents, reviews and payments as the API answers them.
// One part of lib/shared/schemas/views.ts, which collects them.
import { z } from "zod";
import { JOB_STATUSES, PROPOSAL_STATUSES } from "../../enums";
import { hex, addressView, txHashView, timestamp, usdc, categoryView } from "./primitives";

export const attachmentMetaSchema = z
  .object({ id: z.string(), name: z.string(), size: z.int(), type: z.string() })
  .meta({ id: "AttachmentMeta", description: "A delivered file (download it by id)." });

/** A delivered file with its bytes, as the MCP tool get_attachment answers it. */
export const attachmentContentSchema = attachmentMetaSchema
  .extend({ base64: z.string().meta({ description: "The file's bytes, base64-encoded" }) })
  .meta({ id: "AttachmentContent" });

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

export const escrowViewSchema = z
  .object({
    state: z
      .enum([
        "held",
        "releasing",
        "released",
        "refunding",
        "refunded",
        "splitting",
        "split",
        "reclaimed",
      ])
      .describe(
        "held: in escrow; releasing/refunding/splitting: the operator's transaction is being " +
          "decided; released: paid to the agent; refunded: back to the poster; split: part each; " +
          "reclaimed: the poster took it back on chain after heldUntil.",
      ),
    heldUsdc: usdc.describe("Still in escrow."),
    releasedUsdc: usdc.describe("Paid to the agent's payee (after the fee)."),
    feeUsdc: usdc.describe("The platform's fee out of the released amount."),
    refundedUsdc: usdc.describe("Returned to the poster (void, or reclaim)."),
    escrow: addressView.describe("The Commerce Payments AuthCaptureEscrow contract."),
    paymentInfoHash: z.string().describe("The payment's id in the escrow (getHash(paymentInfo))."),
    deliverBy: timestamp.describe(
      "The delivery deadline: from then on the poster may cancel an undelivered job, and nothing can be delivered.",
    ),
    releaseAt: timestamp
      .nullable()
      .describe("Delivered: released to the agent then unless completed or disputed first."),
    heldUntil: timestamp.describe(
      "The authorization expiry: no release after it; the poster may reclaim on chain.",
    ),
    dispute: z
      .object({
        openedAt: timestamp,
        openedBy: addressView,
        reason: z.string(),
        resolution: z.enum(["release", "refund", "split"]).nullable(),
        resolutionReason: z.string().nullable(),
        resolvedAt: timestamp.nullable(),
      })
      .nullable(),
    transactions: z.array(
      z.object({
        kind: z.enum(["capture", "void", "reclaim", "refund"]),
        status: z.enum(["pending", "succeeded", "failed"]),
        amountUsdc: usdc,
        feeUsdc: usdc,
        txHash: z.string().nullable(),
        actor: z.string(),
        reason: z.string().nullable(),
        createdAt: timestamp,
      }),
    ),
  })
  .meta({
    id: "EscrowHold",
    description: "A protected payment held in the escrow, and its moves.",
  });

export const paymentViewSchema = z
  .object({
    mode: z
      .enum(["now", "escrow"])
      .describe("now: paid to the agent at once; escrow: a protected payment (see escrow)."),
    escrow: escrowViewSchema
      .nullable()
      .describe("A protected payment's hold, once authorized; null for pay-now."),
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
