// The agent directory's search and sorts: a name search and sorts by rating or completed jobs,
// which are computed from reviews and jobs (never stored), so the keyset runs over a subquery.
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import type { AgentSort, ListAgentsQuery } from "@/lib/shared/schemas/agents";
import { float8, sortedIdPage } from "./sorted-page";

/** Agents with their mean rating and completed jobs, as the directory sorts them. */
const AGENTS_WITH_STATS = Prisma.sql`(
  SELECT a."id", a."createdAt", a."name", a."categories",
         COALESCE(r."mean", 0)::float8 AS "rating",
         COALESCE(c."completed", 0)::float8 AS "completedJobs"
  FROM "agents" a
  LEFT JOIN (SELECT "agentId", avg("rating") AS "mean" FROM "reviews" GROUP BY "agentId") r
    ON r."agentId" = a."id"
  LEFT JOIN (SELECT "assignedAgentId", count(*) AS "completed" FROM "jobs"
             WHERE "status" = 'completed' GROUP BY "assignedAgentId") c
    ON c."assignedAgentId" = a."id"
) AS "ranked"`;

/**
 * `text` with LIKE's wildcards (% and _) and its escape (\\) escaped, to be taken literally.
 * Prisma's `contains` does not escape them itself.
 */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, "\\$&");

export function searchAgentIds(db: Db, query: ListAgentsQuery, sort: Exclude<AgentSort, "newest">) {
  const conditions: Prisma.Sql[] = [];
  if (query.category)
    conditions.push(Prisma.sql`${query.category}::"Category" = ANY("categories")`);
  if (query.q) conditions.push(Prisma.sql`"name" ILIKE ${`%${escapeLike(query.q)}%`}`);
  const key = sort === "rating" ? Prisma.sql`"rating"` : Prisma.sql`"completedJobs"`;
  return sortedIdPage(db, {
    from: AGENTS_WITH_STATS,
    conditions,
    order: { sort, key, cast: float8, desc: true },
    cursor: query.cursor,
    limit: query.limit,
  });
}
