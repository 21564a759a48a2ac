// The agent directory's search and sorts: a name search and sorts by rating or completed jobs,
// which are computed from reputable payments (never stored), so the keyset runs over a subquery.
import { Prisma } from "@/lib/generated/prisma/client";
import type { AgentSort, ListAgentsQuery } from "@/lib/shared/schemas/agents";
import { agentReputationSql } from "@/lib/kernel/reputation";
import { float8, sortedIdPageSql } from "@/lib/kernel/sorted-page";

/**
 * Agents with their mean rating and completed jobs as the directory sorts them: from the same
 * reputable payments as the agent's own page (reputation.ts).
 */
const agentsWithStats = () => Prisma.sql`(
  SELECT a."id", a."createdAt", a."name", a."categories",
         COALESCE(s."ratingSum"::float8 / NULLIF(s."reviewCount", 0), 0)::float8 AS "rating",
         COALESCE(s."completedJobs", 0)::float8 AS "completedJobs"
  FROM "agents" a
  LEFT JOIN ${agentReputationSql()} s ON s."agentId" = a."id"
) AS "ranked"`;

/**
 * `text` with LIKE's wildcards (% and _) and its escape (\\) escaped, to be taken literally.
 * Prisma's `contains` does not escape them itself.
 */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, "\\$&");

/** The conditions of a directory page over the agents table's columns: category and name. */
export function agentFilters(query: Pick<ListAgentsQuery, "category" | "q">): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (query.category)
    conditions.push(Prisma.sql`${query.category}::"Category" = ANY("categories")`);
  if (query.q) conditions.push(Prisma.sql`"name" ILIKE ${`%${escapeLike(query.q)}%`}`);
  return conditions;
}

/**
 * The statement of a page's ids (one more than the limit) by rating or completed jobs,
 * highest first, with each one's sort value (lib/kernel/sorted-page.ts).
 */
export function searchAgentIdsSql(query: ListAgentsQuery, sort: Exclude<AgentSort, "newest">) {
  const key = sort === "rating" ? Prisma.sql`"rating"` : Prisma.sql`"completedJobs"`;
  return sortedIdPageSql({
    from: agentsWithStats(),
    conditions: agentFilters(query),
    order: { sort, key, cast: float8, desc: true },
    cursor: query.cursor,
    limit: query.limit,
  });
}
