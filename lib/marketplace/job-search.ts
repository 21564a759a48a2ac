// The job list's search and sorts: full-text `q` (ranked), budget bounds, and keyset pages
// ordered by budget or rank. Plain "newest" lists without `q` stay on the Prisma query in
// jobs.ts (the hot path); these shapes need SQL Prisma cannot say (tsquery, row comparison).
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { usdcToAtomic } from "@/lib/shared/money";
import type { JobSort, ListJobsQuery } from "@/lib/shared/schemas/jobs";
import {
  bigint,
  float8,
  type SortKey,
  sortedIdPage,
  sortedIdPageSql,
} from "@/lib/kernel/sorted-page";

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

const searchPage = (query: ListJobsQuery, sort: RankedSort) => ({
  from: Prisma.sql`"jobs"`,
  conditions: jobFilters(query),
  order: sortKey(sort, query.q),
  cursor: query.cursor,
  limit: query.limit,
});

/** One page of job ids in `sort` order with its next cursor. */
export function searchJobIds(db: Db, query: ListJobsQuery, sort: RankedSort) {
  return sortedIdPage(db, searchPage(query, sort));
}

/** The statement searchJobIds runs (for EXPLAIN in npm run bench). */
export const searchJobIdsSql = (query: ListJobsQuery, sort: RankedSort) =>
  sortedIdPageSql(searchPage(query, sort));
