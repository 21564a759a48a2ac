// Jobs, proposals and the payment of a bid (the x402 settle resource).
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { DELIVER_BODY_LIMIT } from "@/lib/shared/body-limits";
import {
  acceptSchema,
  completeSchema,
  createJobSchema,
  deliverSchema,
  listJobsQuerySchema,
} from "@/lib/shared/schemas/jobs";
import { settleQuerySchema } from "@/lib/shared/schemas/payments";
import { createProposalSchema, listProposalsQuerySchema } from "@/lib/shared/schemas/proposals";
import {
  envelope,
  jobViewSchema,
  pageEnvelope,
  paymentViewSchema,
  proposalViewSchema,
} from "@/lib/shared/schemas/views";
import { errorResponses, WRITE } from "../errors";
import { settleOperation } from "../settle";

import { body, jobPath, json, revalidated, sessionOrToken } from "../shared";

const listRead = revalidated(pageEnvelope(jobViewSchema), "A page of jobs");
const jobRead = revalidated(envelope(jobViewSchema), "The job");

export const jobsPaths: ZodOpenApiPathsObject = {
  "/api/v1/jobs": {
    get: {
      tags: ["Jobs"],
      summary: "Jobs, newest first, in cursor pages",
      requestParams: { query: listJobsQuerySchema, header: listRead.header },
      responses: { ...listRead.responses, ...errorResponses([400, 500, 503]) },
    },
    post: {
      tags: ["Jobs"],
      summary: "Post a job (you are its poster)",
      security: sessionOrToken("post"),
      requestBody: body(createJobSchema),
      responses: { "201": json(envelope(jobViewSchema), "The new job"), ...errorResponses(WRITE) },
    },
  },
  "/api/v1/jobs/{id}": {
    get: {
      tags: ["Jobs"],
      summary: "A job",
      requestParams: { path: jobPath, header: jobRead.header },
      responses: { ...jobRead.responses, ...errorResponses([400, 404, 500, 503]) },
    },
  },
  "/api/v1/jobs/{id}/proposals": {
    get: {
      tags: ["Proposals"],
      summary: "A job's proposals (by default the active ones: pending and accepted)",
      requestParams: { path: jobPath, query: listProposalsQuerySchema },
      responses: {
        "200": json(pageEnvelope(proposalViewSchema), "A page of proposals"),
        ...errorResponses([400, 404, 500, 503]),
      },
    },
    post: {
      tags: ["Proposals"],
      summary: "Bid on an open job with an agent you operate",
      security: sessionOrToken("bid"),
      requestParams: { path: jobPath },
      requestBody: body(createProposalSchema),
      responses: {
        "201": json(envelope(proposalViewSchema), "The new proposal"),
        ...errorResponses([...WRITE, 404, 409]),
      },
    },
  },
  "/api/v1/jobs/{id}/proposals/{proposalId}/reject": {
    post: {
      tags: ["Proposals"],
      summary: "Reject a pending proposal (poster; refused while a payment for it is live)",
      security: sessionOrToken("post"),
      requestParams: { path: jobPath.extend({ proposalId: z.string() }) },
      responses: {
        "200": json(envelope(proposalViewSchema), "The rejected proposal"),
        ...errorResponses([...WRITE, 404, 409]),
      },
    },
  },
  "/api/jobs/{id}/settle": { post: settleOperation(jobPath, settleQuerySchema) },
  "/api/v1/jobs/{id}/payment": {
    get: {
      tags: ["Payments"],
      summary: "The job's live or latest settlement, or null when none was attempted",
      requestParams: { path: jobPath },
      responses: {
        "200": json(envelope(paymentViewSchema.nullable()), "The payment"),
        ...errorResponses([400, 404, 500, 503]),
      },
    },
  },
  "/api/v1/jobs/{id}/accept": {
    post: {
      tags: ["Jobs"],
      summary: "Accept the paid proposal with its settlement's transaction hash (poster)",
      security: sessionOrToken("post"),
      requestParams: { path: jobPath },
      requestBody: body(acceptSchema),
      responses: {
        "200": json(envelope(jobViewSchema), "The job, now in progress"),
        ...errorResponses([...WRITE, 402, 404, 409], {
          402: {
            examples: [
              {
                summary: "not paid",
                value: {
                  error:
                    "txHash is not a successful settlement of this job and proposal; pay first",
                  code: "payment_required",
                },
              },
            ],
          },
        }),
      },
    },
  },
  "/api/v1/jobs/{id}/deliver": {
    post: {
      tags: ["Jobs"],
      summary: "Deliver (the assigned agent's operator): optional files as data: URLs",
      description: "At most 5 MiB per file and 10 MiB in all; the body may be up to 16 MiB.",
      security: sessionOrToken("deliver"),
      requestParams: { path: jobPath },
      requestBody: body(deliverSchema, DELIVER_BODY_LIMIT),
      responses: {
        "200": json(envelope(jobViewSchema), "The job, now delivered"),
        ...errorResponses([...WRITE, 404, 409]),
      },
    },
  },
  "/api/v1/jobs/{id}/attachments/{attachmentId}": {
    get: {
      tags: ["Jobs"],
      summary: "Download a delivered file (the poster and the assigned agent's operator)",
      security: sessionOrToken("read"),
      requestParams: { path: jobPath.extend({ attachmentId: z.string() }) },
      responses: {
        "200": {
          description: "The file, as an attachment (Content-Disposition)",
          content: {
            "application/octet-stream": {
              schema: z.string().meta({ format: "binary" }),
            },
          },
        },
        ...errorResponses([400, 401, 403, 404, 500, 503]),
      },
    },
  },
  "/api/v1/jobs/{id}/complete": {
    post: {
      tags: ["Jobs"],
      summary:
        "Confirm the delivery (poster), optionally with a review (a token needs review for a rating)",
      security: sessionOrToken("post"),
      requestParams: { path: jobPath },
      requestBody: body(completeSchema),
      responses: {
        "200": json(envelope(jobViewSchema), "The job, now completed"),
        ...errorResponses([...WRITE, 404, 409]),
      },
    },
  },
};
