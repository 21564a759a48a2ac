// The job list's search and sorts: full-text `q` (ranked), budget bounds, and keyset pages
// ordered by budget or rank. Plain "newest" lists without `q` stay on the Prisma query in
// jobs.ts (the hot path); these shapes need SQL Prisma cannot say (tsquery, row comparison).
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { usdcToAtomic } from "@/lib/shared/money";
import type { JobSort, ListJobsQuery } from "@/lib/shared/schemas/jobs";
import { decodeSortedCursor, encodeSortedCursor } from "./pagination";

type RankedSort = Exclude<JobSort, "newest">;

interface IdRow {
  id: string;
  createdAt: Date;
  sortValue: bigint | number;
}

/** Filters every list shape shares, as SQL conditions. */
export function jobFilters(query: ListJobsQuery): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (query.status) conditions.push(Prisma.sql`"status" = ${query.status}::"JobStatus"`);
  if (query.category) conditions.push(Prisma.sql`"category" = ${query.category}::"Category"`);
  if (query.minBudgetUsdc !== undefined) {
    conditions.push(Prisma.sql`"budgetAtomic" >= ${usdcToAtomic(query.minBudgetUsdc)}`);
  }
  if (query.maxBudgetUsdc !== undefined) {
    conditions.push(Prisma.sql`"budgetAtomic" <= ${usdcToAtomic(query.maxBudgetUsdc)}`);
  }
  if (query.q !== undefined) {
    conditions.push(Prisma.sql`"searchVector" @@ websearch_to_tsquery('english', ${query.q})`);
  }
  return conditions;
}

function sortKey(sort: RankedSort, q: string | undefined) {
  if (sort === "relevance") {
    // Weights: title A, description B, requirements C (the migration's generated column).
    const rank = Prisma.sql`ts_rank_cd("searchVector", websearch_to_tsquery('english', ${q ?? ""}))::float8`;
    return { key: rank, cast: (value: string) => Prisma.sql`${Number(value)}::float8`, desc: true };
  }
  return {
    key: Prisma.sql`"budgetAtomic"`,
    cast: (value: string) => Prisma.sql`${BigInt(value)}::bigint`,
    desc: sort === "budget_desc",
  };
}

/**
 * One page of job ids in `sort` order with its next cursor. Ties fall back to (createdAt, id)
 * in the same direction, so one (key, createdAt, id) row comparison is the keyset condition.
 */
export async function searchJobIds(
  db: Db,
  query: ListJobsQuery,
  sort: RankedSort,
): Promise<{ ids: string[]; nextCursor: string | null }> {
  const { key, cast, desc } = sortKey(sort, query.q);
  const conditions = jobFilters(query);
  const after = decodeSortedCursor(query.cursor, sort);
  if (after) {
    const row = Prisma.sql`(${key}, "createdAt", "id")`;
    const bound = Prisma.sql`(${cast(after.value)}, ${after.createdAt}::timestamp(3), ${after.id})`;
    conditions.push(desc ? Prisma.sql`${row} < ${bound}` : Prisma.sql`${row} > ${bound}`);
  }
  const where = conditions.length
    ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`
    : Prisma.empty;
  const direction = desc ? Prisma.sql`DESC` : Prisma.sql`ASC`;
  const rows = await db.$queryRaw<IdRow[]>`
    SELECT "id", "createdAt", ${key} AS "sortValue" FROM "jobs" ${where}
    ORDER BY 3 ${direction}, "createdAt" ${direction}, "id" ${direction}
    LIMIT ${query.limit + 1}`;
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    ids: page.map((row) => row.id),
    nextCursor:
      rows.length > query.limit && last
        ? encodeSortedCursor({
            createdAt: last.createdAt,
            id: last.id,
            sort,
            value: String(last.sortValue),
          })
        : null,
  };
}
