// The job list's search and sorts: full-text `q` (ranked), budget bounds, and keyset pages
// ordered by budget or rank: SQL Prisma cannot say (tsquery, row comparison). jobs.ts reads
// the page's jobs as JSON in the same statement (lib/kernel/job-rows.ts); job-scan.ts bounds
// what a page with a filter no index serves may read.
import { Prisma } from "@/lib/generated/prisma/client";
import { LIMITS } from "@/lib/shared/limits";
import { usdcToAtomic } from "@/lib/shared/money";
import type { JobSort, ListJobsQuery } from "@/lib/shared/schemas/jobs";
import {
  afterSortedCursor,
  bigint,
  float8,
  type SortKey,
  sortedIdPageSql,
  sortedOrderSql,
} from "@/lib/kernel/sorted-page";
import type { SortedJobJsonRow } from "@/lib/kernel/job-rows";
import { type Counted, type JobScan, jobScanSql, type ScanWay } from "./job-scan";

type RankedSort = Exclude<JobSort, "newest">;

/**
 * `q` as websearch_to_tsquery should read it. A `-` excludes the word right after it; runs of
 * them with nothing between ("- - -", "------") nest NOTs until PostgreSQL fails with "tsquery
 * stack too small" (33 were enough). So a run before a word becomes one `-`, and a run before
 * a space or the end is dropped: the same search, in a shape the parser takes.
 */
export function searchText(q: string): string {
  return q.replace(/(?:-\s*)+(?=[^\s-])/gu, "-").replace(/-+(?=\s|$)/gu, " ");
}

/** A page's order: newest first, or a sorted keyset (by budget or rank). */
export type PageOrder = "newest" | RankedSort;

/** The budget bounds, as SQL conditions. */
function budgetBounds(query: ListJobsQuery): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (query.minBudgetUsdc !== undefined) {
    conditions.push(Prisma.sql`"budgetAtomic" >= ${usdcToAtomic(query.minBudgetUsdc)}`);
  }
  if (query.maxBudgetUsdc !== undefined) {
    conditions.push(Prisma.sql`"budgetAtomic" <= ${usdcToAtomic(query.maxBudgetUsdc)}`);
  }
  return conditions;
}

/**
 * The filters an index serves together with `order` (its leading columns): status and
 * category beside createdAt; status, then the budget's range, beside the budget. A window
 * reads only those, in order. `statusOnRows`: the status compared as text, which no index
 * serves (job-scan.ts's "words" way checks it on each row the words' index finds).
 */
function seekFilters(query: ListJobsQuery, order: PageOrder, statusOnRows = false): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (query.status) {
    conditions.push(
      statusOnRows
        ? Prisma.sql`"status"::text = ${query.status}`
        : Prisma.sql`"status" = ${query.status}::"JobStatus"`,
    );
  }
  if (isBudgetSort(order)) return [...conditions, ...budgetBounds(query)];
  if (query.category) conditions.push(Prisma.sql`"category" = ${query.category}::"Category"`);
  return conditions;
}

/** The other filters, checked on each row read. */
function checkFilters(query: ListJobsQuery, order: PageOrder): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (isBudgetSort(order)) {
    if (query.category) conditions.push(Prisma.sql`"category" = ${query.category}::"Category"`);
  } else {
    conditions.push(...budgetBounds(query));
  }
  if (query.poster) conditions.push(Prisma.sql`"posterAddress" = ${query.poster}`);
  if (query.q !== undefined) {
    conditions.push(
      Prisma.sql`"searchVector" @@ websearch_to_tsquery('english', ${searchText(query.q)})`,
    );
  }
  return conditions;
}

/** One word: letters and digits only, no space, quote or dash. */
const ONE_WORD = /^[\p{L}\p{N}]+$/u;

/**
 * Whether the planner's estimate of the checks comes from statistics: no words, or one word.
 * For several it multiplies their frequencies as if independent: far too low for words that
 * come together ("manuals manuals", a phrase), and job-scan.ts trusts a low estimate only so
 * far (its exact way reads every real match).
 */
const estimable = (query: ListJobsQuery) => query.q === undefined || ONE_WORD.test(query.q.trim());

/**
 * The seek for job-scan.ts's "words" way: only a search for one word with a status has one.
 * The way reads every job with the words, so it is chosen on the planner's estimate of them:
 * for one word it comes from the words' statistics (the commonest counted), within a small
 * factor; for several it multiplies their frequencies as if independent, and eight words
 * that always came together were estimated at 16 jobs where 120,000 had them (the words way
 * read them all: 0.3 to 0.5 s at 400,000 jobs, against 21 to 33 ms intersected).
 */
function seekOnRows(query: ListJobsQuery, order: PageOrder, after: Prisma.Sql[] = []) {
  if (query.q === undefined || !query.status || !ONE_WORD.test(query.q.trim())) return undefined;
  return [...seekFilters(query, order, true), ...after];
}

/**
 * Which one index holds all the page's filters, for a count of the matches (job-scan.ts's
 * countJobScan): the words' index (status, category, poster and the words; not the budget),
 * or a status's budget range alone (the b-tree over status and budget). A budget range with
 * anything else is checked on rows: counting a category's 43,000 jobs within one at a million
 * jobs cost 55 ms, where the window held the page in 2; without a status the range's rows
 * (the budget's histogram) are all the estimate needs.
 */
function counted(query: ListJobsQuery): Counted | undefined {
  const budget = query.minBudgetUsdc !== undefined || query.maxBudgetUsdc !== undefined;
  if (query.q !== undefined) return budget ? undefined : "words";
  const onlyStatus = query.status && !query.category && !query.poster;
  return budget && onlyStatus ? "budget" : undefined;
}

/**
 * What every scan of a page shares (job-scan.ts's JobScan but its order and limit): the seek
 * (the filters an index serves with `order`, then the cursor's keyset `after`), the checks,
 * and what the estimate and the count go by.
 */
function scanFilters(query: ListJobsQuery, order: PageOrder, after: Prisma.Sql[]) {
  const filters = seekFilters(query, order);
  return {
    seek: [...filters, ...after],
    filtered: filters.length > 0,
    seekOnRows: seekOnRows(query, order, after),
    check: checkFilters(query, order),
    counted: counted(query),
    estimable: estimable(query),
  };
}

const isBudgetSort = (order: PageOrder) => order === "budget_desc" || order === "budget_asc";

const NEWEST = Prisma.sql`"createdAt" DESC, "id" DESC`;

function sortKey(sort: RankedSort, q: string | undefined): SortKey {
  if (sort === "relevance") {
    // Weights: title A, description B, requirements C (the migration's generated column).
    const rank = Prisma.sql`ts_rank_cd("searchVector", websearch_to_tsquery('english', ${searchText(q ?? "")}))::float8`;
    return { sort, key: rank, cast: float8, desc: true };
  }
  return { sort, key: Prisma.sql`"budgetAtomic"`, cast: bigint, desc: sort === "budget_desc" };
}

/**
 * A newest-first page whose filters an index serves with the order: its conditions, read by
 * walking that index. Undefined when a filter must be checked row by row (newestScan's).
 */
export function newestSeek(query: ListJobsQuery): Prisma.Sql[] | undefined {
  return checkFilters(query, "newest").length ? undefined : seekFilters(query, "newest");
}

/** A newest-first page with filters checked row by row: what job-scan.ts reads. */
export function newestScan(query: ListJobsQuery, after: Prisma.Sql[]): JobScan {
  return {
    ...scanFilters(query, "newest", after),
    order: NEWEST,
    limit: query.limit + 1,
  };
}

/** How a sorted page (by budget or rank) is read. */
export interface SortedRead {
  /** The sort's name (written into its cursors) and direction. */
  name: string;
  desc: boolean;
  /** What job-scan.ts reads for the page; undefined when no filter is checked row by row. */
  scan: JobScan | undefined;
  /** The id page's statement (lib/kernel/sorted-page.ts), its scan read `way`. */
  idPage(way: ScanWay): Prisma.Sql;
  /** Columns of the id page besides id, createdAt and sortValue. */
  extra: string[];
  /** The matches a read found, and how many the page needs (job-scan.ts's readJobScan). */
  found(rows: SortedJobJsonRow[]): number;
  needed: number;
}

/**
 * By budget: the page's rows straight from the scan in budget order (the cursor is part of
 * what the window seeks). By relevance: the newest LIMITS.rankedMatches matches, then
 * ranked: no index orders by a rank, so PostgreSQL read and ranked every match of a common
 * word (50,000 rows of the benchmark's million for one page). A search matching fewer is
 * ranked whole; one matching more is ranked within its newest matches (and pages end there).
 * A read found enough when it held that many matches; the page counts them
 * (`candidateCount`), since a full page says nothing of how many were ranked. An empty page
 * counts them too, on a row without a job: a page past the candidates' end (a cursor forged,
 * or one the newest matches moved on from) is empty whichever way it is read, and without its
 * count it read every match exactly, the whole table for a word every job has.
 */
export function sortedRead(query: ListJobsQuery, sort: RankedSort): SortedRead {
  const order = sortKey(sort, query.q);
  const base = { name: order.sort, desc: order.desc };
  if (sort !== "relevance") {
    const after = afterSortedCursor(order, query.cursor);
    const scan: JobScan = {
      ...scanFilters(query, sort, after),
      order: sortedOrderSql(order),
      limit: query.limit + 1,
    };
    return {
      ...base,
      scan: scan.check.length ? scan : undefined,
      extra: [],
      idPage: (way) =>
        sortedIdPageSql({
          order,
          from: Prisma.sql`(${jobScanSql(way, scan)}) AS "jobs"`,
          conditions: [],
          cursor: undefined,
          limit: query.limit,
        }),
      found: (rows) => rows.length,
      needed: query.limit + 1,
    };
  }
  const scan: JobScan = {
    ...scanFilters(query, sort, []),
    order: NEWEST,
    limit: LIMITS.rankedMatches,
    // What the rank and the page's key read: the candidates' whole rows, read again by id,
    // cost half the statement at a million jobs (500 rows for a page that shows 50).
    columns: ["id", "createdAt", "searchVector"],
  };
  return {
    ...base,
    scan,
    extra: ["candidateCount"],
    idPage: (way) => {
      const page = sortedIdPageSql({
        order,
        from: Prisma.sql`"candidates"`,
        conditions: [],
        cursor: query.cursor,
        limit: query.limit,
      });
      return Prisma.sql`WITH "candidates" AS MATERIALIZED (${jobScanSql(way, scan)})
        SELECT "page".*, "counted"."candidateCount"
        FROM (SELECT count(*)::int AS "candidateCount" FROM "candidates") "counted"
        LEFT JOIN (${page}) "page" ON true`;
    },
    found: (rows) => rows[0]?.candidateCount ?? 0,
    needed: LIMITS.rankedMatches,
  };
}
