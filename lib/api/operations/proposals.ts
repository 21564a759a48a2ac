import "server-only";
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { getJobPayment } from "@/lib/payments/ledger/payment-view";
import { claimedPayer } from "@/lib/payments/settle/payment-header";
import { settleJobPayment } from "@/lib/payments/settle/settle";
import { listProposals, rejectProposal, submitProposal } from "@/lib/marketplace/proposals";
import { settleQuerySchema } from "@/lib/shared/schemas/payments";
import { createProposalSchema, listProposalsQuerySchema } from "@/lib/shared/schemas/proposals";
import {
  paymentViewSchema,
  proposalViewSchema,
  settlementViewSchema,
} from "@/lib/shared/schemas/views";
import { publicUrl } from "../browser-writes";
import { errorResponse, ok } from "../envelope";
import { settleDocs } from "../openapi/settle";
import { answer, defineOperation, pageAnswer, PUBLIC, sessionOrToken } from "../operation";
import { enforceWalletRateLimit } from "../request-limits";
import { AS_JOB, jobPath, proposalPath } from "./params";

// Proposals (bids), and paying one: the x402 settle resource and the job's payment.

export const listProposalsOperation = defineOperation({
  id: "listProposals",
  method: "GET",
  path: "/api/v1/jobs/{id}/proposals",
  tag: "Proposals",
  summary: "A job's proposals, oldest first (by default the active ones: pending and accepted)",
  auth: PUBLIC,
  params: jobPath,
  query: listProposalsQuerySchema,
  success: { description: "A page of proposals", data: proposalViewSchema, page: true },
  errors: ["job_not_found", "invalid_cursor"],
  mcp: {
    name: "list_proposals",
    title: "List a job's proposals",
    result: "proposals",
    rename: AS_JOB,
  },
  handle: async ({ db, params, query }) => pageAnswer(await listProposals(db, params.id, query)),
});

export const submitProposalOperation = defineOperation({
  id: "submitProposal",
  method: "POST",
  path: "/api/v1/jobs/{id}/proposals",
  tag: "Proposals",
  summary: "Bid on an open job with an agent you operate",
  description:
    "Not on your own job (also through an agent you operate), not with an agent whose payee " +
    "has not agreed, one live bid per agent and job; bidUsdc at least MIN_AMOUNT_USDC.",
  auth: sessionOrToken("bid"),
  params: jobPath,
  body: createProposalSchema,
  success: { status: 201, description: "The new proposal", data: proposalViewSchema },
  errors: [
    "amount_below_minimum",
    "not_agent_operator",
    "own_job",
    ["self_payment", 403],
    "job_not_found",
    "agent_not_found",
    "job_not_open",
    "payee_consent_pending",
    "already_bid",
  ],
  mcp: { name: "submit_proposal", title: "Bid on a job", result: "proposal", rename: AS_JOB },
  handle: async ({ db, wallet, params, body }) =>
    answer(await submitProposal(db, wallet, params.id, body)),
});

export const rejectProposalOperation = defineOperation({
  id: "rejectProposal",
  method: "POST",
  path: "/api/v1/jobs/{id}/proposals/{proposalId}/reject",
  tag: "Proposals",
  summary: "Reject a pending proposal (poster; refused while a payment for it is live)",
  auth: sessionOrToken("post"),
  params: proposalPath,
  success: { description: "The rejected proposal", data: proposalViewSchema },
  errors: [
    "not_poster",
    "job_not_found",
    "proposal_not_found",
    "job_not_open",
    "proposal_not_pending",
    "proposal_paid",
    "settlement_pending",
  ],
  mcp: {
    name: "reject_proposal",
    title: "Reject a proposal",
    result: "proposal",
    rename: AS_JOB,
  },
  handle: async ({ db, wallet, params }) =>
    answer(await rejectProposal(db, wallet, params.id, params.proposalId)),
});

export const settlePaymentOperation = defineOperation({
  id: "settlePayment",
  method: "POST",
  path: "/api/jobs/{id}/settle",
  tag: "Payments",
  summary: "Pay a proposal's bid through x402 (the job's poster signs)",
  description:
    "Without PAYMENT-SIGNATURE: 402 with the challenge in PAYMENT-REQUIRED. With it: verify, " +
    "claim the job's slot, settle on chain, answer 200 with the hash. The same signature sent " +
    "again answers the same 200. Attempts are limited per payer wallet like writes. See " +
    "docs/payments.md for what to do on each code.",
  auth: PUBLIC,
  params: jobPath,
  query: settleQuerySchema,
  success: {
    description: "Settled. Accept the proposal with data.txHash.",
    data: settlementViewSchema,
  },
  errors: [
    "invalid_payload",
    "job_not_found",
    "proposal_not_found",
    "job_not_open",
    "proposal_not_pending",
    "already_paid",
    "settlement_pending",
    ["self_payment", 409],
    "payee_consent_pending",
    "facilitator_unavailable",
    "chain_unavailable",
  ],
  openapi: settleDocs,
  handle: async ({ db, req, params, query }) => {
    const paymentHeader = req!.headers.get("payment-signature");
    const payer = paymentHeader ? claimedPayer(paymentHeader) : undefined;
    if (payer) await enforceWalletRateLimit("write", payer);
    const outcome = await settleJobPayment(db, {
      jobId: params.id,
      proposalId: query.proposalId,
      paymentHeader,
      resourceUrl: publicUrl(req!),
      mode: query.mode,
    });
    if (outcome.kind === "payment_required") {
      return errorResponse(
        402,
        outcome.reason,
        {
          "PAYMENT-REQUIRED": encodePaymentRequiredHeader(outcome.paymentRequired),
          ...(outcome.paymentResponse
            ? { "PAYMENT-RESPONSE": encodePaymentResponseHeader(outcome.paymentResponse) }
            : {}),
        },
        outcome.code,
      );
    }
    return ok(outcome.data, {
      headers: { "PAYMENT-RESPONSE": encodePaymentResponseHeader(outcome.paymentResponse) },
    });
  },
});

export const getPaymentOperation = defineOperation({
  id: "getPayment",
  method: "GET",
  path: "/api/v1/jobs/{id}/payment",
  tag: "Payments",
  summary: "The job's live or latest settlement, or null when none was attempted",
  auth: PUBLIC,
  params: jobPath,
  success: { description: "The payment", data: paymentViewSchema.nullable() },
  errors: ["job_not_found"],
  mcp: {
    name: "get_payment",
    title: "Get a job's payment",
    description:
      "The job's live or latest x402 settlement (status pending, succeeded or failed, txHash, " +
      "payer, payTo, amountUsdc), or null when nobody paid yet.",
    result: "payment",
    rename: AS_JOB,
  },
  handle: async ({ db, params }) => answer(await getJobPayment(db, params.id)),
});
