import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { conflict, forbidden, notFound } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { usdcToAtomic } from "@/lib/payments/money";
import type { CreateJobInput, JobStatus, ListJobsQuery } from "@/lib/validation";
import { newId, isPossibleId } from "./ids";
import { checkRole, checkState, type Operation } from "./lifecycle";
import { afterCursor, decodeCursor, orderBy, type Page, toPage } from "./pagination";
import { jobInclude, type JobRow, toJobView } from "./serialize";
import type { JobView } from "./types";

export function defaultHandle(poster: Address): string {
  return `@${poster.slice(2, 8)}`;
}

export async function createJob(db: Db, poster: Address, input: CreateJobInput): Promise<JobView> {
  const row = await db.$transaction(async (tx) => {
    await tx.wallet.upsert({ where: { address: poster }, create: { address: poster }, update: {} });
    return tx.job.create({
      data: {
        id: newId("job"),
        title: input.title,
        description: input.description,
        category: input.category,
        budgetAtomic: usdcToAtomic(input.budgetUsdc),
        timelineDays: input.timelineDays,
        requirements: input.requirements,
        handle: input.handle ?? defaultHandle(poster),
        posterAddress: poster,
      },
      include: jobInclude,
    });
  });
  return toJobView(row);
}

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
  if (!row) throw notFound(`job ${id} not found`);
  return row;
}

export async function getJob(db: Db, id: string): Promise<JobView> {
  return toJobView(await getJobRowOrThrow(db, id));
}

export async function listJobs(db: Db, query: ListJobsQuery): Promise<Page<JobView>> {
  const rows = await db.job.findMany({
    where: {
      ...(query.status ? { status: query.status } : {}),
      ...(query.category ? { category: query.category } : {}),
      ...afterCursor(decodeCursor(query.cursor), "desc"),
    },
    orderBy: orderBy("desc"),
    take: query.limit + 1,
    include: jobInclude,
  });
  const page = toPage(rows, query.limit);
  return { items: page.items.map(toJobView), nextCursor: page.nextCursor };
}

/** Pending proposal counts per job, for lists. */
export async function countActiveProposals(db: Db, jobIds: string[]): Promise<Map<string, number>> {
  if (jobIds.length === 0) return new Map();
  const groups = await db.proposal.groupBy({
    by: ["jobId"],
    where: { jobId: { in: jobIds }, status: { not: "rejected" } },
    _count: { _all: true },
  });
  return new Map(groups.map((group) => [group.jobId, group._count._all]));
}

/** Throws the 403 or 409 a role or state rule gives, in that order. */
export function assertAllowed(
  operation: Operation,
  job: { status: JobStatus; posterAddress: string },
  caller: Address,
  agentWallets?: readonly string[],
): void {
  const role = checkRole(operation, { caller, posterAddress: job.posterAddress, agentWallets });
  if (!role.allowed) throw forbidden(role.reason);
  const state = checkState(operation, job.status);
  if (!state.allowed) throw conflict(state.reason);
}

/**
 * Moves a job `from` → `to` with one conditional UPDATE. Zero rows means another request
 * changed the job first: the caller gets 409 and nothing of its transaction is kept.
 */
export async function transitionJob(
  tx: Prisma.TransactionClient,
  jobId: string,
  from: JobStatus,
  data: Prisma.JobUncheckedUpdateManyInput & { status: JobStatus },
): Promise<void> {
  const { count } = await tx.job.updateMany({ where: { id: jobId, status: from }, data });
  if (count !== 1)
    throw conflict(`the job is no longer ${from.replace("_", " ")}; re-read it and retry`);
}
