import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { forbidden } from "@/lib/errors";
import { MY_JOB_GROUPS, type MyJobsQuery, type MyProposalsQuery } from "@/lib/shared/schemas/me";
import type { WorkQuery } from "@/lib/shared/schemas/work";
import type { MyJobView, MyProposalView, WorkView } from "@/lib/shared/views";
import { getAgentRowOrThrow, listAgentsOperatedBy, operatedBy } from "./agents";
import { agentWallets, operates } from "./lifecycle";
import { afterCursor, decodeCursor, orderBy, type Page, toPage } from "./pagination";
import { jobInclude, toJobView, toProposalView } from "./serialize";

/**
 * A wallet's own work, read side: its jobs as a poster and the jobs assigned to the agents it
 * operates, by group (MY_JOB_GROUPS), its agents' bids, and the MCP tool my_work built from
 * them. Lists are newest first, keyset-paged on (createdAt, id).
 */

const PENDING = { status: "pending" as const };

/** One page of one group of my jobs, each with its pending proposal count. */
export async function listMyJobs(
  db: Db,
  wallet: Address,
  query: MyJobsQuery,
): Promise<Page<MyJobView>> {
  const group = MY_JOB_GROUPS[query.group];
  const rows = await db.job.findMany({
    where: {
      status: group.status,
      ...(group.side === "poster"
        ? { posterAddress: wallet }
        : { assignedAgent: operatedBy(wallet) }),
      ...("pendingProposals" in group
        ? { proposals: group.pendingProposals ? { some: PENDING } : { none: PENDING } }
        : {}),
      ...afterCursor(decodeCursor(query.cursor), "desc"),
    },
    orderBy: orderBy("desc"),
    take: query.limit + 1,
    include: jobInclude,
  });
  const pending = await countPendingProposals(
    db,
    rows.slice(0, query.limit).map((row) => row.id),
  );
  return toPage(rows, query.limit, (row) => ({
    job: toJobView(row),
    pendingProposals: pending.get(row.id) ?? 0,
  }));
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
      throw forbidden("you do not operate this agent");
    }
  }
  const rows = await db.proposal.findMany({
    where: {
      agent: operatedBy(wallet),
      ...(query.agentId !== undefined ? { agentId: query.agentId } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...afterCursor(decodeCursor(query.cursor), "desc"),
    },
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
 * What a wallet's agents are working on (the MCP tool my_work): the agents it operates (as
 * payee or operator), the jobs assigned to them (optionally in one `status`) and their pending
 * bids with each job, newest first, at most `limit` of each.
 */
export async function getWork(db: Db, wallet: Address, query: WorkQuery): Promise<WorkView> {
  const [agents, assigned, bids] = await Promise.all([
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
  return { agents, assigned: assigned.map(toJobView), bids: bids.items };
}
