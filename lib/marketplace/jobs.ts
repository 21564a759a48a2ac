import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { insertWalletSql, walletVerifiedSql } from "@/lib/db/wallets";
import { writeInOneStatement } from "@/lib/kernel/write";
import { DomainError, notFound } from "@/lib/platform/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { usdcToAtomic } from "@/lib/shared/money";
import type { CreateJobInput, ListJobsQuery } from "@/lib/shared/schemas/jobs";
import { newId, isPossibleId } from "@/lib/kernel/ids";
import { newestJobRowsSql, selectJobRowsByIds, selectNewestJobRows } from "@/lib/kernel/job-rows";
import { jobFilters, searchJobIds, searchJobIdsSql } from "./job-search";
import { ANNOUNCEMENTS } from "@/lib/kernel/lifecycle";
import { cachedRead } from "@/lib/kernel/read-cache";
import { assertAtLeastMinimum } from "./reputation";
import { decodeCursor, fitPage, type Page, toPage } from "@/lib/kernel/pagination";
import { type JobRow, toJobView } from "@/lib/kernel/serialize";
import type { JobView } from "@/lib/shared/view-types";

export function defaultHandle(poster: Address): string {
  return `@${poster.slice(2, 8)}`;
}

/** "@22d491", "22d491", "@0x22d491…": an address prefix, the shape of a default handle. */
const ADDRESS_LIKE_HANDLE = /^@?(?:0x)?([0-9a-f]{6,40})$/i;

/**
 * The handle a job shows: the poster's own, or their default. A handle shaped like an address
 * prefix ("@22d491") is reserved for the wallet whose address starts so: another poster cannot
 * pass for that wallet on the board.
 */
export function posterHandle(poster: Address, requested: string | undefined): string {
  if (requested === undefined) return defaultHandle(poster);
  const prefix = ADDRESS_LIKE_HANDLE.exec(requested)?.[1];
  if (prefix && !poster.slice(2).toLowerCase().startsWith(prefix.toLowerCase())) {
    throw new DomainError(
      "invalid",
      `handle ${requested} looks like another wallet's address; handles of that shape are ` +
        "reserved for the wallet whose address starts so",
      {},
      "handle_reserved",
    );
  }
  return requested;
}

/**
 * post: one statement (lib/events/record.ts, writeInOneStatement): the poster's wallet row if
 * it has none yet, the job, its `job.created` event. Everything the answer shows is known
 * before the write but the poster's Verified badge, which the statement answers.
 */
export async function createJob(db: Db, poster: Address, input: CreateJobInput): Promise<JobView> {
  const budgetAtomic = usdcToAtomic(input.budgetUsdc);
  assertAtLeastMinimum("budgetUsdc", budgetAtomic);
  const now = new Date();
  const job: Omit<JobRow, "poster" | "attachments"> = {
    id: newId("job"),
    title: input.title,
    description: input.description,
    category: input.category,
    budgetAtomic,
    timelineDays: input.timelineDays,
    requirements: input.requirements,
    handle: posterHandle(poster, input.handle),
    status: "open",
    posterAddress: poster,
    assignedAgentId: null,
    acceptedProposalId: null,
    paymentTxHash: null,
    cancelledAt: null,
    createdAt: now,
    updatedAt: now,
    deliveredAt: null,
    completedAt: null,
  };
  // The columns hold UTC without a zone, as Prisma writes them.
  const at = now.toISOString().replace("Z", "");
  const [answer] = await writeInOneStatement<{ posterVerified: boolean }>(db, {
    ctes: `"new_wallet" AS (${insertWalletSql("$1")}),
       "new_job" AS (
         INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic",
           "timelineDays", "requirements", "handle", "status", "posterAddress", "createdAt",
           "updatedAt")
         VALUES ($3, $4, $5, $6::"Category", $7::bigint, $8::int, $9::text[], $10,
           $11::"JobStatus", $1, $2::timestamp(3), $2::timestamp(3))
       )`,
    select: `SELECT ${walletVerifiedSql("new_wallet", "$1")} AS "posterVerified"`,
    values: [
      poster,
      at,
      job.id,
      job.title,
      job.description,
      job.category,
      job.budgetAtomic,
      job.timelineDays,
      job.requirements,
      job.handle,
      job.status,
    ],
    events: [
      {
        fact: { type: ANNOUNCEMENTS.post, jobId: job.id },
        row: { status: job.status, category: job.category, posterAddress: poster },
      },
    ],
  });
  // A new job has no attachments.
  return toJobView({
    ...job,
    poster: { verified: answer?.posterVerified === true },
    attachments: [],
  });
}

/** One job as anyone may see it; served from the read cache while no commit intervened. */
export function getJob(db: Db, id: string): Promise<JobView> {
  return cachedRead(db, `job:${id}`, async () => {
    const [row] = isPossibleId(id) ? await selectJobRowsByIds(db, [id]) : [];
    if (!row) throw notFound("job_not_found", `job ${id} not found`);
    return toJobView(row);
  });
}

/** A page of jobs; first pages come from the read cache while no commit intervened. */
export function listJobs(db: Db, query: ListJobsQuery): Promise<Page<JobView>> {
  if (query.cursor) return readJobPage(db, query);
  return cachedRead(db, `jobs:${JSON.stringify(query)}`, () => readJobPage(db, query));
}

/** How a page is read: by rank or budget (ids, then rows), or newest first in one statement. */
function pagePlan(query: ListJobsQuery) {
  const sort = query.sort ?? (query.q !== undefined ? "relevance" : "newest");
  if (sort !== "newest" || query.q !== undefined) {
    return { ranked: sort === "newest" ? "relevance" : sort } as const;
  }
  const conditions = jobFilters(query);
  const after = decodeCursor(query.cursor);
  if (after) {
    conditions.push(
      Prisma.sql`("createdAt", "id") < (${after.createdAt}::timestamp(3), ${after.id})`,
    );
  }
  return { conditions };
}

async function readJobPage(db: Db, query: ListJobsQuery): Promise<Page<JobView>> {
  const plan = pagePlan(query);
  if (plan.ranked) {
    const found = await searchJobIds(db, query, plan.ranked);
    const views = (await selectJobRowsByIds(db, found.ids)).map(toJobView);
    return fitPage(views, found.more, found.cursorAfter);
  }
  const rows = await selectNewestJobRows(db, plan.conditions, query.limit + 1);
  return toPage(rows, query.limit, toJobView);
}

/** The statement that finds a page's jobs (for EXPLAIN in npm run bench). */
export function jobPageSql(query: ListJobsQuery): Prisma.Sql {
  const plan = pagePlan(query);
  if (plan.ranked) return searchJobIdsSql(query, plan.ranked);
  return newestJobRowsSql(plan.conditions, query.limit + 1);
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
