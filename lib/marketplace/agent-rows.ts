// The public agent reads (the directory's pages, one agent) as JSON text PostgreSQL builds,
// in one statement each, as job-rows.ts does for jobs: each agent's view (toAgentView's keys,
// in its order, with its values) by row_to_json, its reputation (reputation.ts) joined beside
// it, and the text passed through to the answer. Before, a page took three queries (the page,
// its rows, their reputation) and Node built objects, then JSON. The EIP-55 checksums and
// totalPaidUsdc's number stay in Node: one pass over the page's text (view-json.ts).
import type { Db } from "@/lib/db";
import { readRows } from "@/lib/db/row-reader";
import { Prisma } from "@/lib/generated/prisma/client";
import { whereSql } from "@/lib/kernel/sorted-page";
import { isoSql, jsonFinisher, usdcSql } from "@/lib/kernel/view-json";
import { oneAgentReputationSql } from "@/lib/kernel/reputation";

/**
 * toAgentView's rating: Math.round(mean × 100) / 100, the mean a double (float8 here, the
 * same IEEE arithmetic), Math.round as floor plus one from a fraction of one half up (ties
 * upwards; x − floor(x) is exact), and the hundredths as an exact decimal: the digits
 * JavaScript prints for that number.
 */
export const ratingSql = (ratingSum: Prisma.Sql, reviewCount: Prisma.Sql) => Prisma.sql`(
  SELECT CASE WHEN ${reviewCount} > 0
    THEN trim_scale((floor(x) + CASE WHEN x - floor(x) >= 0.5 THEN 1 ELSE 0 END)::numeric / 100)
    ELSE 0 END
  FROM (SELECT ${ratingSum}::float8 / NULLIF(${reviewCount}, 0)::float8 * 100::float8 AS x) m)`;

const CREATED_AT = isoSql(Prisma.sql`agent."createdAt"`);

/**
 * One agent's view as JSON, over `agent` (an agents row) and `stats` (its reputation row, or
 * nulls). Aliases of their own: reputation.ts's statements use the short ones inside.
 * row_to_json writes compact JSON, its columns in this order.
 */
const AGENT_VIEW_JSON = Prisma.sql`(SELECT row_to_json(v) FROM (SELECT
    agent."id", agent."name", agent."description",
    ${ratingSql(Prisma.sql`stats."ratingSum"`, Prisma.sql`stats."reviewCount"`)} AS "rating",
    COALESCE(stats."reviewCount", 0) AS "reviewCount",
    agent."walletAddress",
    agent."pendingWalletAddress" IS NOT NULL AS "payeeConsentPending",
    agent."operatorAddress", agent."categories",
    COALESCE(stats."completedJobs", 0) AS "completedJobs",
    COALESCE(stats."payers", 0) AS "paidByPosters",
    ${usdcSql(Prisma.sql`COALESCE(stats."paidAtomic", 0)`)} AS "totalPaidUsdc",
    ${CREATED_AT} AS "createdAt"
  ) v)::text`;

/**
 * `agent` with its reputation `stats` beside it: computed for this agent only. Built per call,
 * never at import: it reads the configuration (MIN_AMOUNT_USDC).
 */
const withReputation = () =>
  Prisma.sql`LEFT JOIN LATERAL ${oneAgentReputationSql(Prisma.sql`agent."id"`)} stats ON true`;

/** An agent's view as JSON text (not yet finished: finishAgentJson), beside its page key. */
export interface AgentJsonRow {
  json: string;
  id: string;
  /** createdAt as toISOString writes it. */
  createdAt: string;
  /** The sort key's value (rating and completed_jobs pages): use it through String(). */
  sortValue?: number | string;
}

const ROW_COLUMNS = Prisma.sql`
  ${AGENT_VIEW_JSON} AS "json", agent."id", ${CREATED_AT} AS "createdAt"`;

/** The text with its addresses checksummed and totalPaidUsdc as atomicToUsdc's number. */
export const finishAgentJson = jsonFinisher(
  ["walletAddress", "operatorAddress"],
  ["totalPaidUsdc"],
);

/** One agent's view as JSON text (finished), or undefined when no agent has `id`. */
export async function selectAgentJson(db: Db, id: string): Promise<string | undefined> {
  const [row] = await readRows<{ json: string }>(
    db,
    Prisma.sql`SELECT ${AGENT_VIEW_JSON} AS "json" FROM "agents" agent ${withReputation()}
      WHERE agent."id" = ${id}`,
  );
  return row && finishAgentJson(row.json);
}

/**
 * Agents matching `conditions` (SQL over the agents table's columns) newest first, at most
 * `limit`, as JSON. The filter and the order run on the agents table alone, and the
 * reputation only for the rows returned.
 */
export function selectNewestAgentJson(db: Db, conditions: Prisma.Sql[], limit: number) {
  const where = whereSql(conditions);
  return readRows<AgentJsonRow>(
    db,
    Prisma.sql`
      SELECT ${ROW_COLUMNS}
      FROM (SELECT * FROM "agents" ${where}
            ORDER BY "createdAt" DESC, "id" DESC LIMIT ${limit}) agent
      ${withReputation()}
      ORDER BY agent."createdAt" DESC, agent."id" DESC`,
  );
}

/**
 * The agents an id page names (`idPage`: a statement answering "id", "createdAt" and
 * "sortValue", as lib/kernel/sorted-page.ts writes it), as JSON, in the page's order
 * (`desc`: the sort's direction), in one statement.
 */
export function selectSortedAgentJson(db: Db, idPage: Prisma.Sql, desc: boolean) {
  const direction = Prisma.raw(desc ? "DESC" : "ASC");
  return readRows<AgentJsonRow>(
    db,
    Prisma.sql`
      SELECT ${ROW_COLUMNS}, p."sortValue"
      FROM (${idPage}) p JOIN "agents" agent ON agent."id" = p."id"
      ${withReputation()}
      ORDER BY p."sortValue" ${direction}, p."createdAt" ${direction}, p."id" ${direction}`,
  );
}
