import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { insertWalletSql, walletVerifiedSql } from "@/lib/db/wallets";
import { writeInOneStatement } from "@/lib/kernel/write";
import { DomainError, notFound } from "@/lib/platform/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { usdcToAtomic } from "@/lib/shared/money";
import type { CreateJobInput, ListJobsQuery } from "@/lib/shared/schemas/jobs";
import { newId, isPossibleId } from "@/lib/kernel/ids";
import {
  checksumPosterAddresses,
  holdsJob,
  newestJobJsonSql,
  newestJobsSql,
  selectJobJson,
  selectNewestJobJson,
  selectSortedJobJson,
  sortedJobJsonSql,
} from "@/lib/kernel/job-rows";
import { newestScan, newestSeek, sortedRead } from "./job-search";
import { countJobScan, estimateJobScan, jobScanSql, readJobScan, type ScanWay } from "./job-scan";
import { ANNOUNCEMENTS } from "@/lib/kernel/lifecycle";
import { cachedRead } from "@/lib/kernel/read-cache";
import { beforeKeySql } from "@/lib/kernel/sorted-page";
import { assertAtLeastMinimum } from "@/lib/kernel/reputation";
import { decodeCursor, type JsonPage, keyedJsonPage, type Page } from "@/lib/kernel/pagination";
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

/** One job's view as JSON text (lib/kernel/job-rows.ts), from the read cache while it holds. */
export function getJobJson(db: Db, id: string): Promise<{ json: string }> {
  return cachedRead(db, `job:${id}`, async () => {
    const json = isPossibleId(id) ? await selectJobJson(db, id) : undefined;
    if (json === undefined) throw notFound("job_not_found", `job ${id} not found`);
    return { json };
  });
}

/** One job as anyone may see it; served from the read cache while no commit intervened. */
export async function getJob(db: Db, id: string): Promise<JobView> {
  return JSON.parse((await getJobJson(db, id)).json) as JobView;
}

/**
 * A page of jobs with its items as JSON text; first pages come from the read cache while no
 * commit intervened.
 */
export function listJobsJson(db: Db, query: ListJobsQuery): Promise<JsonPage> {
  if (query.cursor) return readJobPage(db, query);
  return cachedRead(db, `jobs:${JSON.stringify(query)}`, () => readJobPage(db, query));
}

/** A page of jobs (listJobsJson's, parsed). */
export async function listJobs(db: Db, query: ListJobsQuery): Promise<Page<JobView>> {
  const page = await listJobsJson(db, query);
  return { items: JSON.parse(page.json) as JobView[], nextCursor: page.nextCursor };
}

/** How a page is read: by rank or budget (a keyset over that key), or newest first. */
function pagePlan(query: ListJobsQuery) {
  const sort = query.sort ?? (query.q !== undefined ? "relevance" : "newest");
  if (sort !== "newest") return { sorted: sortedRead(query, sort) } as const;
  const after = decodeCursor(query.cursor);
  const keyset = after ? [beforeKeySql(after)] : [];
  const seek = newestSeek(query);
  // Every filter served by an index beside createdAt: that index walked, as far as the page.
  if (seek) return { newest: newestJobsSql([...seek, ...keyset], query.limit + 1) } as const;
  return { scan: newestScan(query, keyset) } as const;
}

/**
 * A page in one statement (up to three when a filter no index serves is checked: job-scan.ts),
 * PostgreSQL writing each job's JSON and Node joining them. `onRead`: told each way the page's
 * jobs are read (jobPageStatements).
 */
async function readJobPage(
  db: Db,
  query: ListJobsQuery,
  onRead?: (way: ScanWay) => void,
): Promise<JsonPage> {
  const plan = pagePlan(query);
  if (plan.sorted) {
    const { sorted } = plan;
    const read = (way: ScanWay) => {
      onRead?.(way);
      return selectSortedJobJson(db, sorted.idPage(way), sorted.desc, sorted.extra);
    };
    const { scan } = sorted;
    const rows = scan
      ? await readJobScan({
          read,
          found: sorted.found,
          needed: sorted.needed,
          estimate: () => estimateJobScan(db, scan),
          count: (upTo) => countJobScan(db, scan, upTo),
        })
      : await read("window");
    return keyedJsonPage(rows.filter(holdsJob), query.limit, checksumPosterAddresses, sorted.name);
  }
  const { scan } = plan;
  const rows = scan
    ? await readJobScan({
        read: (way) => {
          onRead?.(way);
          return selectNewestJobJson(db, jobScanSql(way, scan));
        },
        found: (page) => page.length,
        needed: query.limit + 1,
        estimate: () => estimateJobScan(db, scan),
        count: (upTo) => countJobScan(db, scan, upTo),
      })
    : await selectNewestJobJson(db, plan.newest);
  return keyedJsonPage(rows, query.limit, checksumPosterAddresses);
}

/**
 * The statements a page of `query` reads its jobs with, in the order it runs them (the page is
 * read to find them): the window, then exactly when the window fell short; or exactly at once.
 * What npm run bench EXPLAINs: the window's statement is not what a rare word's page runs.
 * The estimate's and the count's statements are not among them.
 */
export async function jobPageStatements(db: Db, query: ListJobsQuery): Promise<Prisma.Sql[]> {
  const ways: ScanWay[] = [];
  await readJobPage(db, query, (way) => ways.push(way));
  // A newest-first page every filter of which an index serves is one statement, without a way.
  return ways.length > 0 ? ways.map((way) => jobPageSql(query, way)) : [jobPageSql(query)];
}

/** The statement that reads a page's jobs, the way `way`. */
export function jobPageSql(query: ListJobsQuery, way: ScanWay = "window"): Prisma.Sql {
  const plan = pagePlan(query);
  if (plan.sorted) {
    return sortedJobJsonSql(plan.sorted.idPage(way), plan.sorted.desc, plan.sorted.extra);
  }
  return newestJobJsonSql(plan.scan ? jobScanSql(way, plan.scan) : plan.newest);
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
