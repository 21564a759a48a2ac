// A wallet's own views: access tokens, my jobs and bids, my work, earnings.
// One part of lib/shared/schemas/views.ts, which collects them.
import { z } from "zod";
import { TOKEN_SCOPES } from "../../enums";
import { MY_JOB_GROUP_NAMES } from "../me";
import { addressView, txHashView, timestamp, usdc } from "./primitives";
import { jobViewSchema, proposalViewSchema, agentViewSchema } from "./market";

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
