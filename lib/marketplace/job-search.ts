// The job list's search and sorts: full-text `q` (ranked), budget bounds, and keyset pages
// ordered by budget or rank: SQL Prisma cannot say (tsquery, row comparison). jobs.ts reads
// the page's jobs as JSON in the same statement (lib/kernel/job-rows.ts).
import { Prisma } from "@/lib/generated/prisma/client";
import { LIMITS } from "@/lib/shared/limits";
import { usdcToAtomic } from "@/lib/shared/money";
import type { JobSort, ListJobsQuery } from "@/lib/shared/schemas/jobs";
import { bigint, float8, type SortKey, sortedIdPageSql } from "@/lib/kernel/sorted-page";

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

/** Filters every list shape shares, as SQL conditions. */
export function jobFilters(query: ListJobsQuery): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (query.status) conditions.push(Prisma.sql`"status" = ${query.status}::"JobStatus"`);
  if (query.category) conditions.push(Prisma.sql`"category" = ${query.category}::"Category"`);
  if (query.poster) conditions.push(Prisma.sql`"posterAddress" = ${query.poster}`);
  if (query.minBudgetUsdc !== undefined) {
    conditions.push(Prisma.sql`"budgetAtomic" >= ${usdcToAtomic(query.minBudgetUsdc)}`);
  }
  if (query.maxBudgetUsdc !== undefined) {
    conditions.push(Prisma.sql`"budgetAtomic" <= ${usdcToAtomic(query.maxBudgetUsdc)}`);
  }
  if (query.q !== undefined) {
    conditions.push(
      Prisma.sql`"searchVector" @@ websearch_to_tsquery('english', ${searchText(query.q)})`,
    );
  }
  return conditions;
}

function sortKey(sort: RankedSort, q: string | undefined): SortKey {
  if (sort === "relevance") {
    // Weights: title A, description B, requirements C (the migration's generated column).
    const rank = Prisma.sql`ts_rank_cd("searchVector", websearch_to_tsquery('english', ${searchText(q ?? "")}))::float8`;
    return { sort, key: rank, cast: float8, desc: true };
  }
  return { sort, key: Prisma.sql`"budgetAtomic"`, cast: bigint, desc: sort === "budget_desc" };
}

/**
 * The rows a page is sorted from. By budget: every match (an index on the budget serves the
 * order). By relevance: the newest LIMITS.rankedMatches matches, then ranked: no index orders
 * by a rank, so PostgreSQL read and ranked every match of a common word (50,000 rows of the
 * benchmark's million for one page). A search matching fewer is ranked whole; one matching
 * more is ranked within its newest matches (and pages end there).
 */
function searchPage(query: ListJobsQuery, sort: RankedSort) {
  const order = sortKey(sort, query.q);
  const base = { order, cursor: query.cursor, limit: query.limit };
  if (sort !== "relevance")
    return { ...base, from: Prisma.sql`"jobs"`, conditions: jobFilters(query) };
  const matches = Prisma.sql`(SELECT "id", "createdAt", "searchVector" FROM "jobs"
    WHERE ${Prisma.join(jobFilters(query), " AND ")}
    ORDER BY "createdAt" DESC, "id" DESC LIMIT ${LIMITS.rankedMatches}) AS "matches"`;
  return { ...base, from: matches, conditions: [] };
}

/** The statement of one page of job ids (one more than the page) in `sort` order. */
export const searchJobIdsSql = (query: ListJobsQuery, sort: RankedSort) =>
  sortedIdPageSql(searchPage(query, sort));

/** The sort's name (written into its cursors) and direction. */
export function searchOrder(query: ListJobsQuery, sort: RankedSort) {
  const { sort: name, desc } = sortKey(sort, query.q);
  return { name, desc };
}
