// A wallet's own views: access tokens, my jobs and bids, my work, earnings.
// One part of lib/shared/schemas/views.ts, which collects them.
import { z } from "zod";
import { TOKEN_SCOPES } from "../../enums";
import { MY_JOB_GROUP_NAMES } from "../me";
import { addressView, txHashView, timestamp, usdc } from "./primitives";
import { jobViewSchema, proposalViewSchema, agentViewSchema, escrowViewSchema } from "./market";

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

const payments = z.int().meta({
  description: "How many payments: pay-now settlements and releases of protected payments",
});

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

/** Where a protected payment's money is now: the payment view's amounts (GET /jobs/:id/payment). */
export const myTransactionEscrowViewSchema = escrowViewSchema
  .pick({ state: true, heldUsdc: true, releasedUsdc: true, feeUsdc: true, refundedUsdc: true })
  .meta({
    id: "MyTransactionEscrow",
    description:
      "A protected payment's hold: still held, released to the agent, refunded to the poster.",
  });

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
    amountUsdc: usdc.meta({
      description:
        "What the poster paid: to the agent (now), or into escrow (escrow: see `escrow` for " +
        "where it is now)",
    }),
    payer: addressView,
    payTo: addressView,
    settledAt: timestamp,
    mode: z.enum(["now", "escrow"]).meta({
      description:
        "now: paid to the agent at once; escrow: a protected payment, held until released",
    }),
    escrow: myTransactionEscrowViewSchema
      .nullable()
      .meta({ description: "A protected payment's hold; null for pay-now" }),
  })
  .meta({
    id: "MyTransaction",
    description:
      "A settled x402 payment I made or one of my agents received (for a protected payment: " +
      "its authorization into escrow, with where the money is now).",
  });

/** One side's protected payments: what is still held, what went each way. */
export const escrowTotalsViewSchema = z
  .object({
    payments: z.int().meta({ description: "How many protected payments" }),
    heldUsdc: usdc.meta({ description: "Still in escrow: neither earned nor spent yet" }),
    releasedUsdc: usdc.meta({ description: "Released to the agent, after the platform's fee" }),
    feeUsdc: usdc.meta({ description: "The platform's fee out of the released amounts" }),
    refundedUsdc: usdc.meta({
      description: "Returned to the poster (refund, the poster's part of a split, reclaim)",
    }),
  })
  .meta({ id: "EscrowTotals" });

/**
 * Money in and out of a wallet, from the settlements ledger (GET /api/v1/me/earnings). Earned
 * and spent count money that reached the agent for good: pay-now payments in full, protected
 * payments as they are released (at the release's time); held and refunded money is in
 * `escrow` only.
 */
export const myEarningsViewSchema = z
  .object({
    earned: z
      .object({
        totalUsdc: usdc,
        payments,
        byAgent: z.array(agentEarningsViewSchema),
        byMonth: z.array(monthTotalViewSchema),
      })
      .meta({
        description:
          "Paid to my agents: pay-now payments, and releases of protected payments after the " +
          "platform's fee (months by release); never money still held or refunded",
      }),
    spent: z.object({ totalUsdc: usdc, payments, byMonth: z.array(monthTotalViewSchema) }).meta({
      description:
        "Paid by me for my jobs: pay-now payments, and releases of protected payments with " +
        "their fee (months by release); never money still held or refunded",
    }),
    escrow: z.object({ earned: escrowTotalsViewSchema, spent: escrowTotalsViewSchema }).meta({
      description:
        "Protected payments, held, released and refunded: `earned` those to my agents, " +
        "`spent` those for my jobs",
    }),
    transactions: z.array(myTransactionViewSchema).meta({
      description: "Newest first, one page of them: meta.nextCursor pages on",
    }),
  })
  .meta({ id: "MyEarnings" });
