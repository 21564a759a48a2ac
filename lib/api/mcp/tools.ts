import "server-only";
import { z } from "zod";
import { assertScope } from "@/lib/auth/caller";
import { ANY_WRITE_SCOPE } from "@/lib/conversations/participants";
import { markThreadRead, postMessage, readThread } from "@/lib/conversations/threads";
import { registerAgent } from "@/lib/marketplace/agents";
import { createJob, getJob, listJobs } from "@/lib/marketplace/jobs";
import { listProposals, rejectProposal, submitProposal } from "@/lib/marketplace/proposals";
import {
  acceptProposal,
  assertMayDeliver,
  completeJob,
  deliverJob,
} from "@/lib/marketplace/transitions";
import { getWork } from "@/lib/marketplace/work";
import { listNotifications } from "@/lib/notifications/notifications";
import { getJobPayment } from "@/lib/payments/ledger/payment-view";
import { LIMITS } from "@/lib/shared/limits";
import { createAgentSchema } from "@/lib/shared/schemas/agents";
import { id } from "@/lib/shared/schemas/common";
import {
  type AttachmentInput,
  acceptSchema,
  completeSchema,
  createJobSchema,
  deliverSchema,
  listJobsQuerySchema,
} from "@/lib/shared/schemas/jobs";
import {
  listMessagesQuerySchema,
  markThreadReadSchema,
  postMessageSchema,
} from "@/lib/shared/schemas/conversations";
import { listNotificationsQuerySchema } from "@/lib/shared/schemas/notifications";
import { createProposalSchema, listProposalsQuerySchema } from "@/lib/shared/schemas/proposals";
import { workQuerySchema } from "@/lib/shared/schemas/work";
import { defineTool, type Tool } from "./tool";

/**
 * The MCP server's tools: each one an HTTP route's twin, calling the same lib/ function with
 * the same schemas, the same role and lifecycle rules and the scope the route needs (README:
 * Access tokens). Paying is not a tool: it is the x402 resource, signed by the poster's wallet.
 */

const jobParams = z.object({ jobId: id("jobId") });
const proposalParams = z.object({ jobId: id("jobId"), proposalId: id("proposalId") });

/** deliver_job: the route's attachments, and plain `text` delivered as one more file. */
const deliverToolInput = z.object({
  text: z
    .string({ error: "text must be a string" })
    .max(LIMITS.attachmentBytes, `text may be at most ${LIMITS.attachmentBytes} characters`)
    .optional(),
  attachments: deliverSchema.unwrap().shape.attachments,
});
export const TEXT_DELIVERY_NAME = "delivery.txt";
/** The one tool whose call may carry more than the JSON body limit (lib/mcp/limits.ts). */
export const DELIVERY_TOOL = "deliver_job";

function textAttachment(text: string): AttachmentInput {
  const bytes = Buffer.from(text, "utf8");
  return {
    name: TEXT_DELIVERY_NAME,
    size: bytes.byteLength,
    type: "text/plain",
    dataUrl: `data:text/plain;base64,${bytes.toString("base64")}`,
  };
}

export const TOOLS: Tool[] = [
  defineTool({
    name: "search_jobs",
    title: "Search jobs",
    description:
      "Lists jobs newest first, optionally by status (open jobs take bids) and category; " +
      "`cursor` is the previous answer's nextCursor. Scope: read.",
    scope: "read",
    write: false,
    input: listJobsQuerySchema,
    run: async ({ db }, _params, input) => {
      const page = await listJobs(db, input);
      return { jobs: page.items, nextCursor: page.nextCursor };
    },
  }),
  defineTool({
    name: "get_job",
    title: "Get a job",
    description: "One job with its status, budget, assignment and delivered files. Scope: read.",
    scope: "read",
    write: false,
    params: jobParams,
    run: async ({ db }, { jobId }) => ({ job: await getJob(db, jobId) }),
  }),
  defineTool({
    name: "list_proposals",
    title: "List a job's proposals",
    description:
      "A job's proposals, oldest first; rejected ones only with status rejected or all. " +
      "Scope: read.",
    scope: "read",
    write: false,
    params: jobParams,
    input: listProposalsQuerySchema,
    run: async ({ db }, { jobId }, input) => {
      const page = await listProposals(db, jobId, input);
      return { proposals: page.items, nextCursor: page.nextCursor };
    },
  }),
  defineTool({
    name: "get_payment",
    title: "Get a job's payment",
    description:
      "The job's live or latest x402 settlement (status pending, succeeded or failed, txHash, " +
      "payer, payTo, amountUsdc), or null when nobody paid yet. Scope: read.",
    scope: "read",
    write: false,
    params: jobParams,
    run: async ({ db }, { jobId }) => ({ payment: await getJobPayment(db, jobId) }),
  }),
  defineTool({
    name: "my_work",
    title: "My work",
    description:
      "The jobs this token's wallet posted (each with its group: proposals_waiting, " +
      "to_confirm, …), the agents it operates, the jobs assigned to them and their pending " +
      "bids with each job; `status` narrows the posted and assigned jobs. Scope: read.",
    scope: "read",
    write: false,
    input: workQuerySchema,
    run: async ({ db, caller }, _params, input) => ({
      ...(await getWork(db, caller.wallet, input)),
    }),
  }),
  defineTool({
    name: "post_job",
    title: "Post a job",
    description:
      "Posts a job as this token's wallet; it starts open. budgetUsdc > 0 (at most 6 decimals). " +
      "Scope: post.",
    scope: "post",
    write: true,
    input: createJobSchema,
    run: async ({ db, caller }, _params, input) => ({
      job: await createJob(db, caller.wallet, input),
    }),
  }),
  defineTool({
    name: "reject_proposal",
    title: "Reject a proposal",
    description:
      "Rejects a pending proposal on your open job (not one that is paid or being paid). " +
      "Scope: post.",
    scope: "post",
    write: true,
    params: proposalParams,
    run: async ({ db, caller }, { jobId, proposalId }) => ({
      proposal: await rejectProposal(db, caller.wallet, jobId, proposalId),
    }),
  }),
  defineTool({
    name: "accept_proposal",
    title: "Accept a paid proposal",
    description:
      "Accepts the proposal you paid for: txHash is the settlement's hash from " +
      "POST /api/jobs/:id/settle (x402, signed by your wallet). The job moves to in_progress. " +
      "Scope: post.",
    scope: "post",
    write: true,
    params: jobParams,
    input: acceptSchema,
    run: async ({ db, caller }, { jobId }, input) => ({
      job: await acceptProposal(db, caller.wallet, jobId, input),
    }),
  }),
  defineTool({
    name: "complete_job",
    title: "Complete a delivered job",
    description:
      "Confirms a delivered job; a rating (1..5) with an optional comment becomes your review " +
      "of the agent. Scope: post, and review when a rating is given.",
    scope: "post",
    write: true,
    params: jobParams,
    input: completeSchema,
    run: async ({ db, caller }, { jobId }, input) => {
      if (input.rating !== undefined) assertScope(caller, "review");
      return { job: await completeJob(db, caller.wallet, jobId, input) };
    },
  }),
  defineTool({
    name: "register_agent",
    title: "Register an agent",
    description:
      "Registers an agent operated by this token's wallet; walletAddress (the payee) defaults " +
      "to it. Scope: bid.",
    scope: "bid",
    write: true,
    input: createAgentSchema,
    run: async ({ db, caller }, _params, input) => ({
      agent: await registerAgent(db, caller.wallet, input),
    }),
  }),
  defineTool({
    name: "submit_proposal",
    title: "Bid on a job",
    description:
      "Submits a proposal on an open job with an agent this token's wallet operates (not on " +
      "your own job; one active proposal per agent and job). Scope: bid.",
    scope: "bid",
    write: true,
    params: jobParams,
    input: createProposalSchema,
    run: async ({ db, caller }, { jobId }, input) => ({
      proposal: await submitProposal(db, caller.wallet, jobId, input),
    }),
  }),
  defineTool({
    name: DELIVERY_TOOL,
    title: "Deliver a job",
    description:
      `Delivers a paid job in progress, as its assigned agent's wallet or operator: \`text\` ` +
      `(delivered as ${TEXT_DELIVERY_NAME}) and/or files { name, size, type, dataUrl } with ` +
      "dataUrl a base64 data: URL; at most 10 files, 5 MiB each, 10 MiB in all. Scope: deliver.",
    scope: "deliver",
    write: true,
    params: jobParams,
    input: deliverToolInput,
    run: async ({ db, caller }, { jobId }, input) => {
      // Who may deliver, and when, before the files are decoded (as the route does).
      await assertMayDeliver(db, caller.wallet, jobId);
      const files = [...input.attachments, ...(input.text ? [textAttachment(input.text)] : [])];
      const delivery = deliverSchema.parse({ attachments: files });
      return { job: await deliverJob(db, caller.wallet, jobId, delivery) };
    },
  }),
  defineTool({
    name: "list_messages",
    title: "Read a proposal's private thread",
    description:
      "The messages between the job's poster and the proposal's agent, oldest first after the " +
      "message id `after`, with your unread count (mark_messages_read moves your marker). " +
      "Only those two may. Scope: read.",
    scope: "read",
    write: false,
    params: proposalParams,
    input: listMessagesQuerySchema,
    run: async ({ db, caller }, { jobId, proposalId }, input) => {
      const page = await readThread(db, caller.wallet, jobId, proposalId, input);
      return { messages: page.items, nextCursor: page.nextCursor, unreadCount: page.unreadCount };
    },
  }),
  defineTool({
    name: "mark_messages_read",
    title: "Mark a proposal's private thread read",
    description:
      "Moves your read marker to message `upTo` (default: the newest) and marks those message " +
      "notifications read. Scope: read.",
    scope: "read",
    write: true,
    params: proposalParams,
    input: markThreadReadSchema,
    run: async ({ db, caller }, { jobId, proposalId }, input) =>
      markThreadRead(db, caller.wallet, jobId, proposalId, input),
  }),
  defineTool({
    name: "send_message",
    title: "Write in a proposal's private thread",
    description:
      "Plain text (1..5,000 characters) to the other side of a proposal's thread: the poster " +
      "(scope post) or the agent's wallet or operator (scope bid). Closed once rejected.",
    scope: ANY_WRITE_SCOPE,
    write: true,
    params: proposalParams,
    input: postMessageSchema,
    run: async ({ db, caller }, { jobId, proposalId }, input) => ({
      message: await postMessage(db, caller, jobId, proposalId, input),
    }),
  }),
  defineTool({
    name: "list_notifications",
    title: "My notifications",
    description:
      "Your notifications newest first (new proposals, answers to your proposals, deliveries, " +
      "completions, reviews, new messages), `unread` only if asked, with the unread count. " +
      "Scope: read.",
    scope: "read",
    write: false,
    input: listNotificationsQuerySchema,
    run: async ({ db, caller }, _params, input) => {
      const page = await listNotifications(db, caller.wallet, input);
      return {
        notifications: page.items,
        nextCursor: page.nextCursor,
        unreadCount: page.unreadCount,
      };
    },
  }),
];

export const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));
