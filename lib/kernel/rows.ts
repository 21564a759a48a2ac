// Loading one row by id, the way every domain does: ids no row can have short-circuit to
// "not found", and a proposal of another job is as unknown as a missing one.
import type { Db } from "@/lib/db";
import type { Agent, Prisma, Proposal } from "@/lib/generated/prisma/client";
import { notFound } from "@/lib/platform/errors";
import { isPossibleId } from "./ids";
import { jobInclude, type JobRow } from "./serialize";

export async function findJobRow(
  db: Db | Prisma.TransactionClient,
  id: string,
): Promise<JobRow | null> {
  if (!isPossibleId(id)) return null;
  return db.job.findUnique({ where: { id }, include: jobInclude });
}

export async function getJobRowOrThrow(
  db: Db | Prisma.TransactionClient,
  id: string,
): Promise<JobRow> {
  const row = await findJobRow(db, id);
  if (!row) throw notFound("job_not_found", `job ${id} not found`);
  return row;
}

export async function getProposalRowOrThrow(
  db: Db,
  jobId: string,
  proposalId: string,
): Promise<Proposal> {
  const row = !isPossibleId(proposalId)
    ? null
    : await db.proposal.findUnique({ where: { id: proposalId } });
  // A proposal of another job is as unknown here as a missing one.
  if (!row || row.jobId !== jobId)
    throw notFound("proposal_not_found", `proposal ${proposalId} not found on job ${jobId}`);
  return row;
}

export async function findAgentRow(db: Db, id: string): Promise<Agent | null> {
  if (!isPossibleId(id)) return null;
  return db.agent.findUnique({ where: { id } });
}

export async function getAgentRowOrThrow(db: Db, id: string): Promise<Agent> {
  const row = await findAgentRow(db, id);
  if (!row) throw notFound("agent_not_found", `agent ${id} not found`);
  return row;
}
