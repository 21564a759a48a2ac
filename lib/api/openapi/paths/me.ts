// "My work": the signed-in wallet's own jobs, bids and money (the /me page's API twins).
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  MY_JOB_GROUPS,
  myEarningsQuerySchema,
  myJobsQuerySchema,
  myProposalsQuerySchema,
} from "@/lib/shared/schemas/me";
import {
  myEarningsViewSchema,
  myJobViewSchema,
  myProposalViewSchema,
  pageEnvelope,
} from "@/lib/shared/schemas/views";
import { errorResponses } from "../errors";
import { json, sessionOrToken } from "../shared";

const groups = Object.entries(MY_JOB_GROUPS)
  .map(([name, group]) => {
    const pending =
      "pendingProposals" in group
        ? group.pendingProposals
          ? ", with a pending proposal"
          : ", without a pending proposal"
        : "";
    const whose = group.side === "poster" ? "my jobs" : "jobs assigned to my agents";
    return `\`${name}\`: ${whose}, ${group.status}${pending}`;
  })
  .join("; ");

export const mePaths: ZodOpenApiPathsObject = {
  "/api/v1/me/jobs": {
    get: {
      tags: ["My work"],
      summary: "My jobs (posted by me, or assigned to agents I operate), each with its group",
      description: `Newest first; \`group\` lists one group only. Groups: ${groups}.`,
      security: sessionOrToken("read"),
      requestParams: { query: myJobsQuerySchema },
      responses: {
        "200": json(pageEnvelope(myJobViewSchema), "A page of my jobs"),
        ...errorResponses([400, 401, 403, 500, 503]),
      },
    },
  },
  "/api/v1/me/proposals": {
    get: {
      tags: ["My work"],
      summary: "Bids by the agents I operate, each with its job",
      description:
        "Newest first; optionally one status and one agent (403 for an agent you do not operate).",
      security: sessionOrToken("read"),
      requestParams: { query: myProposalsQuerySchema },
      responses: {
        "200": json(pageEnvelope(myProposalViewSchema), "A page of bids"),
        ...errorResponses([400, 401, 403, 404, 500, 503]),
      },
    },
  },
  "/api/v1/me/earnings": {
    get: {
      tags: ["My work"],
      summary: "What my agents earned and what I spent, from settled payments",
      description:
        "Totals per agent and per UTC month are over every settled payment; `transactions` is " +
        "one page of them, newest first (`meta.nextCursor` pages on).",
      security: sessionOrToken("read"),
      requestParams: { query: myEarningsQuerySchema },
      responses: {
        "200": json(
          z.object({
            data: myEarningsViewSchema,
            meta: z.object({ nextCursor: z.string().nullable() }),
          }),
          "The summary and a page of transactions",
        ),
        ...errorResponses([400, 401, 403, 500, 503]),
      },
    },
  },
};
