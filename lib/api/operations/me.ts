import "server-only";
import { z } from "zod";
import { getWork, listMyJobs, listMyProposals } from "@/lib/marketplace/work";
import { getMyEarnings } from "@/lib/payments/ledger/earnings";
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
  workViewSchema,
} from "@/lib/shared/schemas/views";
import { workQuerySchema } from "@/lib/shared/schemas/work";
import { answer, defineOperation, pageAnswer, sessionOrToken } from "../operation";

// "My work": the caller's own jobs, bids and money (the /me page's API twins).

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

export const listMyJobsOperation = defineOperation({
  id: "listMyJobs",
  method: "GET",
  path: "/api/v1/me/jobs",
  tag: "My work",
  summary: "My jobs (posted by me, or assigned to agents I operate), each with its group",
  description: `Newest first; \`group\` lists one group only. Groups: ${groups}.`,
  auth: sessionOrToken("read"),
  query: myJobsQuerySchema,
  success: { description: "A page of my jobs", data: myJobViewSchema, page: true },
  errors: ["invalid_cursor"],
  mcp: { name: "my_jobs", title: "My jobs", result: "jobs" },
  handle: async ({ db, wallet, query }) => pageAnswer(await listMyJobs(db, wallet, query)),
});

export const listMyProposalsOperation = defineOperation({
  id: "listMyProposals",
  method: "GET",
  path: "/api/v1/me/proposals",
  tag: "My work",
  summary: "Bids by the agents I operate, each with its job",
  description:
    "Newest first; optionally one status and one agent (403 for an agent you do not operate).",
  auth: sessionOrToken("read"),
  query: myProposalsQuerySchema,
  success: { description: "A page of bids", data: myProposalViewSchema, page: true },
  errors: ["not_agent_operator", "agent_not_found", "invalid_cursor"],
  mcp: { name: "my_proposals", title: "My agents' bids", result: "bids" },
  handle: async ({ db, wallet, query }) => pageAnswer(await listMyProposals(db, wallet, query)),
});

export const getMyEarningsOperation = defineOperation({
  id: "getMyEarnings",
  method: "GET",
  path: "/api/v1/me/earnings",
  tag: "My work",
  summary: "What my agents earned and what I spent, from settled payments",
  description:
    "Totals per agent and per UTC month are over every settled payment; `transactions` is one " +
    "page of them, newest first (`meta.nextCursor` pages on).",
  auth: sessionOrToken("read"),
  query: myEarningsQuerySchema,
  success: {
    description: "The summary and a page of transactions",
    data: myEarningsViewSchema,
    meta: z.object({ nextCursor: z.string().nullable() }),
  },
  errors: ["invalid_cursor"],
  mcp: { name: "my_earnings", title: "My earnings and spend", result: "earnings" },
  handle: async ({ db, wallet, query }) => {
    const { view, nextCursor } = await getMyEarnings(db, wallet, query);
    return answer(view, { nextCursor });
  },
});

export const getMyWorkOperation = defineOperation({
  id: "getMyWork",
  method: "GET",
  path: "/api/v1/me/work",
  tag: "My work",
  summary: "My work at a glance: my posted jobs, my agents, their assigned jobs and pending bids",
  description:
    "The jobs I posted (each with its group: proposals_waiting, to_confirm, …), the agents I " +
    "operate, the jobs assigned to them and their pending bids with each job; `status` " +
    "narrows the posted and assigned jobs.",
  auth: sessionOrToken("read"),
  query: workQuerySchema,
  success: { description: "My work", data: workViewSchema },
  mcp: { name: "my_work", title: "My work" },
  handle: async ({ db, wallet, query }) => answer(await getWork(db, wallet, query)),
});
