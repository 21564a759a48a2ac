import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { notFound } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { usdcToAtomic } from "@/lib/shared/money";
import type { CreateJobInput, ListJobsQuery } from "@/lib/shared/schemas/jobs";
import { newId, isPossibleId } from "./ids";
import { searchJobIds } from "./job-search";
import { announce, runWrite } from "./lifecycle";
import { afterCursor, decodeCursor, orderBy, type Page, toPage } from "./pagination";
import { jobInclude, type JobRow, toJobView } from "./serialize";
import type { JobView } from "@/lib/shared/views";

export function defaultHandle(poster: Address): string {
  return `@${poster.slice(2, 8)}`;
}

export async function createJob(db: Db, poster: Address, input: CreateJobInput): Promise<JobView> {
  const row = await runWrite(db, async (tx) => {
    await tx.wallet.upsert({ where: { address: poster }, create: { address: poster }, update: {} });
    const job = await tx.job.create({
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
    announce(tx, "post", { jobId: job.id });
    return job;
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
  const sort = query.sort ?? (query.q !== undefined ? "relevance" : "newest");
  if (sort !== "newest" || query.q !== undefined) {
    const { ids, nextCursor } = await searchJobIds(
      db,
      query,
      sort === "newest" ? "relevance" : sort,
    );
    const rows = await db.job.findMany({ where: { id: { in: ids } }, include: jobInclude });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return { items: ids.map((id) => toJobView(byId.get(id)!)), nextCursor };
  }
  const rows = await db.job.findMany({
    where: {
      ...(query.status ? { status: query.status } : {}),
      ...(query.category ? { category: query.category } : {}),
      ...budgetBounds(query),
      ...afterCursor(decodeCursor(query.cursor), "desc"),
    },
    orderBy: orderBy("desc"),
    take: query.limit + 1,
    include: jobInclude,
  });
  const page = toPage(rows, query.limit);
  return { items: page.items.map(toJobView), nextCursor: page.nextCursor };
}

function budgetBounds(query: ListJobsQuery) {
  if (query.minBudgetUsdc === undefined && query.maxBudgetUsdc === undefined) return {};
  return {
    budgetAtomic: {
      ...(query.minBudgetUsdc !== undefined ? { gte: usdcToAtomic(query.minBudgetUsdc) } : {}),
      ...(query.maxBudgetUsdc !== undefined ? { lte: usdcToAtomic(query.maxBudgetUsdc) } : {}),
    },
  };
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
