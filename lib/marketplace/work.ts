import type { Address } from "viem";
import type { Db } from "@/lib/db";
import type { WorkQuery } from "@/lib/shared/schemas/work";
import type { WorkView } from "@/lib/shared/views";
import { listAgentsOperatedBy } from "./agents";
import { orderBy } from "./pagination";
import { jobInclude, toJobView, toProposalView } from "./serialize";

/**
 * What a wallet's agents are working on: the agents it operates (as payee or operator), the
 * jobs assigned to them (optionally in one `status`) and their pending bids with each job,
 * newest first, at most `limit` of each.
 */
export async function getWork(db: Db, wallet: Address, query: WorkQuery): Promise<WorkView> {
  const agents = await listAgentsOperatedBy(db, wallet);
  const agentIds = agents.map((agent) => agent.id);
  if (agentIds.length === 0) return { agents, assigned: [], bids: [] };
  const [assigned, bids] = await Promise.all([
    db.job.findMany({
      where: {
        assignedAgentId: { in: agentIds },
        ...(query.status ? { status: query.status } : {}),
      },
      orderBy: orderBy("desc"),
      take: query.limit,
      include: jobInclude,
    }),
    db.proposal.findMany({
      where: { agentId: { in: agentIds }, status: "pending" },
      orderBy: orderBy("desc"),
      take: query.limit,
      include: { job: { include: jobInclude } },
    }),
  ]);
  return {
    agents,
    assigned: assigned.map(toJobView),
    bids: bids.map(({ job, ...proposal }) => ({
      proposal: toProposalView(proposal),
      job: toJobView(job),
    })),
  };
}
