import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { forbidden } from "@/lib/platform/errors";
import { sameAddress } from "@/lib/shared/address";
import {
  MY_JOB_GROUPS,
  type MyJobGroup,
  myJobGroupOf,
  type MyJobsQuery,
  type MyProposalsQuery,
} from "@/lib/shared/schemas/me";
import type { JobStatus } from "@/lib/shared/enums";
import type { WorkQuery } from "@/lib/shared/schemas/work";
import type { MyJobView, MyProposalView, WorkView } from "@/lib/shared/view-types";
import { listAgentsOperatedBy, operatedBy } from "./agents";
import { getAgentRowOrThrow } from "@/lib/kernel/rows";
import { agentWallets, operates } from "@/lib/kernel/lifecycle";
import { afterCursor, decodeCursor, orderBy, type Page, toPage } from "@/lib/kernel/pagination";
import { jobInclude, toJobView, toProposalView } from "@/lib/kernel/serialize";

/**
 * A wallet's own work, read side: its jobs as a poster and the jobs assigned to the agents it
 * operates, by group (MY_JOB_GROUPS), its agents' bids, and the MCP tool my_work built from
 * them. Lists are newest first, keyset-paged on (createdAt, id).
 */

const PENDING = { status: "pending" as const };

/**
 * One page of my jobs, each with its group and pending proposal count: one group
 * (`query.group`), or all of them, newest first.
 */
export async function listMyJobs(
  db: Db,
  wallet: Address,
  query: MyJobsQuery,
  /** Only the jobs I posted, optionally in one state (the MCP tool my_work's `posted`). */
  posted?: { status?: JobStatus },
): Promise<Page<MyJobView>> {
  const rows = await db.job.findMany({
    where: afterCursor(
      query.group
        ? groupFilter(wallet, query.group)
        : posted
          ? { posterAddress: wallet, ...(posted.status ? { status: posted.status } : {}) }
          : mine(wallet),
      decodeCursor(query.cursor),
      "desc",
    ),
    orderBy: orderBy("desc"),
    take: query.limit + 1,
    include: jobInclude,
  });
  const pending = await countPendingProposals(
    db,
    rows.slice(0, query.limit).map((row) => row.id),
  );
  return toPage(rows, query.limit, (row) => {
    const pendingProposals = pending.get(row.id) ?? 0;
    // A wallet on both sides of a job (from before bidding on one's own job was refused)
    // sees it as its poster. Every (side, state) a job of mine can be in has its group: the
    // agent's side only has assigned jobs, which are never open.
    const side = sameAddress(row.posterAddress, wallet) ? "poster" : "agent";
    return {
      job: toJobView(row),
      group: query.group ?? myJobGroupOf(side, row.status, pendingProposals)!,
      pendingProposals,
    };
  });
}

/** My jobs: posted by me, or assigned to an agent I operate. */
const mine = (wallet: Address) => ({
  OR: [{ posterAddress: wallet }, { assignedAgent: operatedBy(wallet) }],
});

function groupFilter(wallet: Address, name: MyJobGroup) {
  const group = MY_JOB_GROUPS[name];
  return {
    status: group.status,
    ...(group.side === "poster"
      ? { posterAddress: wallet }
      : { assignedAgent: operatedBy(wallet) }),
    ...("pendingProposals" in group
      ? { proposals: group.pendingProposals ? { some: PENDING } : { none: PENDING } }
      : {}),
  };
}

async function countPendingProposals(db: Db, jobIds: string[]): Promise<Map<string, number>> {
  if (jobIds.length === 0) return new Map();
  const groups = await db.proposal.groupBy({
    by: ["jobId"],
    where: { jobId: { in: jobIds }, ...PENDING },
    _count: { _all: true },
  });
  return new Map(groups.map((group) => [group.jobId, group._count._all]));
}

/**
 * One page of the bids made by the agents I operate (optionally one of them, in one status),
 * each with its job. Naming an agent I do not operate is 403, an unknown one 404.
 */
export async function listMyProposals(
  db: Db,
  wallet: Address,
  query: MyProposalsQuery,
): Promise<Page<MyProposalView>> {
  if (query.agentId !== undefined) {
    const agent = await getAgentRowOrThrow(db, query.agentId);
    if (!operates(wallet, agentWallets(agent))) {
      throw forbidden("not_agent_operator", "you do not operate this agent");
    }
  }
  const rows = await db.proposal.findMany({
    where: afterCursor(
      {
        agent: operatedBy(wallet),
        ...(query.agentId !== undefined ? { agentId: query.agentId } : {}),
        ...(query.status ? { status: query.status } : {}),
      },
      decodeCursor(query.cursor),
      "desc",
    ),
    orderBy: orderBy("desc"),
    take: query.limit + 1,
    include: { job: { include: jobInclude } },
  });
  return toPage(rows, query.limit, ({ job, ...proposal }) => ({
    proposal: toProposalView(proposal),
    job: toJobView(job),
  }));
}

/**
 * A wallet's work (the MCP tool my_work): the jobs it posted (each with its group and pending
 * bids), the agents it operates (as payee or operator), the jobs assigned to them (optionally
 * in one `status`) and their pending bids with each job, newest first, at most `limit` of each.
 */
export async function getWork(db: Db, wallet: Address, query: WorkQuery): Promise<WorkView> {
  const [posted, agents, assigned, bids] = await Promise.all([
    listMyJobs(db, wallet, { limit: query.limit }, { status: query.status }),
    listAgentsOperatedBy(db, wallet),
    db.job.findMany({
      where: {
        assignedAgent: operatedBy(wallet),
        ...(query.status ? { status: query.status } : {}),
      },
      orderBy: orderBy("desc"),
      take: query.limit,
      include: jobInclude,
    }),
    listMyProposals(db, wallet, { status: "pending", limit: query.limit }),
  ]);
  return { posted: posted.items, agents, assigned: assigned.map(toJobView), bids: bids.items };
}
