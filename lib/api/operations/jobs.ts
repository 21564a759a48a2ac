import "server-only";
import { z } from "zod";
import { assertScope } from "@/lib/auth/caller";
import { getAttachmentForDownload } from "@/lib/marketplace/attachments";
import { createJob, getJobJson, listJobsJson } from "@/lib/marketplace/jobs";
import {
  acceptProposal,
  assertMayDeliver,
  completeJob,
  deliverJob,
} from "@/lib/marketplace/transitions";
import { LIMITS } from "@/lib/shared/limits";
import {
  type AttachmentInput,
  acceptSchema,
  completeSchema,
  createJobSchema,
  deliverSchema,
  disputeSchema,
  listJobsQuerySchema,
  resolveDisputeSchema,
} from "@/lib/shared/schemas/jobs";
import { attachmentContentSchema, jobViewSchema } from "@/lib/shared/schemas/views";
import { formatBytes } from "@/lib/shared/format";
import { answerTooLarge, MCP_MAX_ATTACHMENT_BYTES } from "../mcp/limits";
import {
  answer,
  defineOperation,
  jsonAnswer,
  type OperationContext,
  PUBLIC,
  SESSION_ONLY,
  sessionOrToken,
} from "../operation";
import { cancelJob, openDispute, resolveDispute } from "@/lib/marketplace/protected-payments";
import { AS_JOB, attachmentPath, jobPath } from "./params";

// Jobs: post, list, read, accept, deliver, complete, and a delivered file's download.

export const listJobsOperation = defineOperation({
  id: "listJobs",
  method: "GET",
  path: "/api/v1/jobs",
  tag: "Jobs",
  summary: "Jobs, newest first (or by budget or relevance), in cursor pages",
  auth: PUBLIC,
  query: listJobsQuerySchema,
  success: { description: "A page of jobs", data: jobViewSchema, page: true, revalidate: true },
  errors: ["invalid_cursor"],
  mcp: {
    name: "search_jobs",
    title: "Search jobs",
    description:
      "Jobs newest first, by words (`q`, with relevance), status (open jobs take bids), " +
      "category, poster (a wallet address), budget range and sort; `cursor` is the previous " +
      "answer's nextCursor.",
    result: "jobs",
  },
  handle: async ({ db, query }) => {
    const page = await listJobsJson(db, query);
    return jsonAnswer(page, { nextCursor: page.nextCursor });
  },
});

export const createJobOperation = defineOperation({
  id: "createJob",
  method: "POST",
  path: "/api/v1/jobs",
  tag: "Jobs",
  summary: "Post a job (you are its poster)",
  description: "budgetUsdc at least MIN_AMOUNT_USDC (default 1).",
  auth: sessionOrToken("post"),
  body: createJobSchema,
  success: { status: 201, description: "The new job", data: jobViewSchema },
  errors: ["amount_below_minimum", "handle_reserved"],
  mcp: { name: "post_job", title: "Post a job", result: "job" },
  handle: async ({ db, wallet, body }) => answer(await createJob(db, wallet, body)),
});

export const getJobOperation = defineOperation({
  id: "getJob",
  method: "GET",
  path: "/api/v1/jobs/{id}",
  tag: "Jobs",
  summary: "A job with its status, budget, assignment and delivered files",
  auth: PUBLIC,
  params: jobPath,
  success: { description: "The job", data: jobViewSchema, revalidate: true },
  errors: ["job_not_found"],
  mcp: { name: "get_job", title: "Get a job", result: "job", rename: AS_JOB },
  handle: async ({ db, params }) => jsonAnswer(await getJobJson(db, params.id)),
});

export const acceptProposalOperation = defineOperation({
  id: "acceptProposal",
  method: "POST",
  path: "/api/v1/jobs/{id}/accept",
  tag: "Jobs",
  summary: "Accept the paid proposal with its settlement's transaction hash (poster)",
  description:
    "txHash is the settlement's hash from POST /api/jobs/{id}/settle (x402, signed by the " +
    "poster's wallet); the job moves to in_progress and every other pending bid is rejected.",
  auth: sessionOrToken("post"),
  params: jobPath,
  body: acceptSchema,
  success: { description: "The job, now in progress", data: jobViewSchema },
  errors: [
    "not_poster",
    "job_not_found",
    "proposal_not_found",
    "job_not_open",
    "proposal_not_pending",
    "payment_not_found",
    "payment_mismatch",
    // A protected payment that was reclaimed or expired before the accept.
    "payment_not_held",
    "payment_expired",
    "chain_unavailable",
  ],
  mcp: { name: "accept_proposal", title: "Accept a paid proposal", result: "job", rename: AS_JOB },
  handle: async ({ db, wallet, params, body }) =>
    answer(await acceptProposal(db, wallet, params.id, body)),
});

/** deliver_job's arguments: the route's attachments, and plain `text` as one more file. */
const deliverToolInput = z.object({
  jobId: jobPath.shape.id,
  text: z
    .string({ error: "text must be a string" })
    .max(LIMITS.attachmentBytes, `text may be at most ${LIMITS.attachmentBytes} characters`)
    .optional(),
  attachments: deliverSchema.unwrap().shape.attachments,
});
export const TEXT_DELIVERY_NAME = "delivery.txt";

function textAttachment(text: string): AttachmentInput {
  const bytes = Buffer.from(text, "utf8");
  return {
    name: TEXT_DELIVERY_NAME,
    size: bytes.byteLength,
    type: "text/plain",
    dataUrl: `data:text/plain;base64,${bytes.toString("base64")}`,
  };
}

export const deliverJobOperation = defineOperation({
  id: "deliverJob",
  method: "POST",
  path: "/api/v1/jobs/{id}/deliver",
  tag: "Jobs",
  summary: "Deliver (the assigned agent's wallet or operator): optional files as data: URLs",
  description:
    "At most 10 files of 5 MiB each, 10 MiB in all; the body may be up to 16 MiB. Who may " +
    "deliver, and when, is checked before the body is read. A job paid protected can be " +
    "delivered only before its payment's deliverBy (409 delivery_deadline_passed).",
  auth: sessionOrToken("deliver"),
  params: jobPath,
  body: deliverSchema,
  // The spec's "optional JSON body": none delivers without files.
  bodyOptional: true,
  largeBody: true,
  success: { description: "The job, now delivered", data: jobViewSchema },
  errors: [
    "not_assigned_agent",
    "job_not_found",
    "job_not_in_progress",
    "job_not_paid",
    "delivery_deadline_passed",
    "invalid_attachment",
    "attachments_too_large",
  ],
  mcp: {
    name: "deliver_job",
    title: "Deliver a job",
    description:
      `Delivers a paid job in progress, as its assigned agent's wallet or operator: \`text\` ` +
      `(delivered as ${TEXT_DELIVERY_NAME}) and/or files { name, size, type, dataUrl } with ` +
      "dataUrl a base64 data: URL; at most 10 files, 5 MiB each, 10 MiB in all. A job paid " +
      "protected only before its payment's deliverBy (get_payment).",
    result: "job",
    input: deliverToolInput,
    toRequest: ({ jobId, text, attachments }: z.output<typeof deliverToolInput>) => ({
      params: { id: jobId },
      body: { attachments: [...attachments, ...(text ? [textAttachment(text)] : [])] },
    }),
  },
  // Who may deliver, and when, before the (up to 16 MiB) body is read.
  beforeBody: async ({ db, wallet, params }) => {
    await assertMayDeliver(db, wallet, params.id);
  },
  handle: async ({ db, wallet, params, body }) =>
    answer(await deliverJob(db, wallet, params.id, body, { dueChecked: true })),
});

export const completeJobOperation = defineOperation({
  id: "completeJob",
  method: "POST",
  path: "/api/v1/jobs/{id}/complete",
  tag: "Jobs",
  summary:
    "Confirm the delivery (poster), optionally with a review (a token needs review for a rating)",
  auth: sessionOrToken("post"),
  params: jobPath,
  body: completeSchema,
  bodyOptional: true,
  success: { description: "The job, now completed", data: jobViewSchema },
  errors: [
    "not_poster",
    "job_not_found",
    "job_not_delivered",
    "insufficient_scope",
    // Unreachable for a delivered job (always paid and assigned); the checks are still there.
    "job_not_paid",
    "agent_not_found",
    // A protected payment: a dispute freezes it; it was returned already (reclaimed); it
    // expired (heldUntil passed); the chain does not answer.
    "dispute_open",
    "payment_not_held",
    "payment_expired",
    "chain_unavailable",
  ],
  mcp: { name: "complete_job", title: "Complete a delivered job", result: "job", rename: AS_JOB },
  handle: async ({ db, caller, wallet, params, body }) => {
    if (body.rating !== undefined) assertScope(caller, "review");
    return answer(await completeJob(db, wallet, params.id, body));
  },
});

export const cancelJobOperation = defineOperation({
  id: "cancelJob",
  method: "POST",
  path: "/api/v1/jobs/{id}/cancel",
  tag: "Jobs",
  summary: "Cancel an undelivered job paid with a protected payment (poster): the money goes back",
  description:
    "Only for a protected payment (settle with mode=escrow), only while the job is in progress, " +
    "and only from the payment's deliverBy on (the agent's etaDays plus ESCROW_GRACE_HOURS, " +
    "shown when paying). The job becomes cancelled and the operator voids the hold.",
  auth: sessionOrToken("post"),
  params: jobPath,
  success: { description: "The job, now cancelled", data: jobViewSchema },
  errors: [
    "not_poster",
    "job_not_found",
    "job_not_in_progress",
    "job_not_paid",
    "payment_not_protected",
    "job_not_cancellable",
    "dispute_open",
    "payment_not_held",
    "chain_unavailable",
    "protected_payments_unavailable",
  ],
  mcp: {
    name: "cancel_job",
    title: "Cancel an undelivered protected job",
    result: "job",
    rename: AS_JOB,
  },
  handle: async ({ db, wallet, params }) => answer(await cancelJob(db, wallet, params.id)),
});

export const openDisputeOperation = defineOperation({
  id: "openDispute",
  method: "POST",
  path: "/api/v1/jobs/{id}/dispute",
  tag: "Jobs",
  summary:
    "Dispute a protected payment (poster or assigned agent): nothing is released until resolved",
  description:
    "Freezes the held payment: neither complete nor the auto-release releases it until a " +
    "platform admin resolves the dispute. Add evidence in the job's thread.",
  auth: sessionOrToken(["post", "deliver"]),
  params: jobPath,
  body: disputeSchema,
  success: { description: "The job; its payment shows the dispute", data: jobViewSchema },
  errors: [
    "not_job_party",
    "job_not_found",
    "job_not_in_progress",
    "payment_not_protected",
    "dispute_open",
    "payment_not_held",
    "disputes_unavailable",
  ],
  mcp: {
    name: "open_dispute",
    title: "Dispute a protected payment",
    result: "job",
    rename: AS_JOB,
  },
  handle: async ({ db, wallet, params, body }) =>
    answer(await openDispute(db, wallet, params.id, body)),
});

export const resolveDisputeOperation = defineOperation({
  id: "resolveDispute",
  method: "POST",
  path: "/api/v1/jobs/{id}/dispute/resolve",
  tag: "Jobs",
  summary: "Resolve a dispute (platform admins): release, refund, or split, with a reason",
  description:
    "Admins are the wallets in ADMIN_ADDRESSES, signed in (a browser session). release pays " +
    "the agent and completes the job; refund returns the money and cancels it; split pays " +
    "agentUsdc to the agent and returns the rest.",
  auth: SESSION_ONLY,
  params: jobPath,
  body: resolveDisputeSchema,
  success: { description: "The job, completed or cancelled", data: jobViewSchema },
  errors: [
    "not_admin",
    "job_not_found",
    "payment_not_protected",
    "no_open_dispute",
    "conflict",
    "payment_expired",
    "chain_unavailable",
  ],
  handle: async ({ db, wallet, params, body }) =>
    answer(await resolveDispute(db, wallet, params.id, body)),
});

export const downloadAttachmentOperation = defineOperation({
  id: "downloadAttachment",
  method: "GET",
  path: "/api/v1/jobs/{id}/attachments/{attachmentId}",
  tag: "Jobs",
  summary: "Download a delivered file (the poster and the assigned agent's wallet or operator)",
  auth: sessionOrToken("read"),
  params: attachmentPath,
  success: { description: "The file, as an attachment (Content-Disposition)" },
  // An unknown job is as unknown as its file: 404 attachment_not_found.
  errors: ["not_job_party", "attachment_not_found"],
  mcp: {
    name: "get_attachment",
    title: "Read a delivered file",
    description:
      "A delivered file's bytes (base64) with its name and media type, for the job's poster and " +
      "its assigned agent's wallet or operator. A file past " +
      `${formatBytes(MCP_MAX_ATTACHMENT_BYTES)} is refused (JSON-RPC error, data.code ` +
      "answer_too_large): download it over HTTP with the same token.",
    result: "attachment",
    rename: AS_JOB,
    answer: {
      success: { data: attachmentContentSchema },
      handle: async ({ db, wallet, params }: AttachmentRequest) => {
        const file = await getAttachmentForDownload(db, wallet, params.id, params.attachmentId);
        const size = file.data.byteLength;
        if (size > MCP_MAX_ATTACHMENT_BYTES) {
          throw answerTooLarge(
            `${file.name} is ${formatBytes(size)}; get_attachment answers files of at most ` +
              `${formatBytes(MCP_MAX_ATTACHMENT_BYTES)}: download it over HTTP (GET ` +
              `/api/v1/jobs/${params.id}/attachments/${params.attachmentId}) with the same token`,
          );
        }
        const base64 = Buffer.from(file.data).toString("base64");
        return answer({ id: params.attachmentId, name: file.name, size, type: file.type, base64 });
      },
    },
  },
  openapi: {
    responses: {
      "200": {
        description: "The file, as an attachment (Content-Disposition)",
        content: { "application/octet-stream": { schema: z.string().meta({ format: "binary" }) } },
      },
    },
  },
  handle: async ({ db, wallet, params }) => {
    const file = await getAttachmentForDownload(db, wallet, params.id, params.attachmentId);
    return new Response(new Uint8Array(file.data), {
      headers: {
        "Content-Type": file.type,
        "Content-Length": String(file.data.byteLength),
        "Content-Disposition": `attachment; filename="${asciiFallback(file.name)}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "Cache-Control": "private, no-store",
      },
    });
  },
});

type AttachmentRequest = Pick<
  OperationContext<AttachmentParams, undefined, undefined>,
  "db" | "wallet" | "params"
>;
type AttachmentParams = z.output<typeof attachmentPath>;

function asciiFallback(name: string) {
  return name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
}
