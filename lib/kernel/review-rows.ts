// An agent's reviews as JSON text PostgreSQL builds, as job-rows.ts does for jobs: each
// review's view (toReviewView's keys, in its order, with its values) by row_to_json, and the
// agent's existence (404 otherwise) asked in the same statement. Before, a page took two
// queries (the agent, then its reviews) and Node built objects, then JSON. The reviewers'
// EIP-55 checksums stay in Node: one pass over the page's text (view-json.ts).
import type { Db } from "@/lib/db";
import { readRows } from "@/lib/db/row-reader";
import { Prisma } from "@/lib/generated/prisma/client";
import type { CursorKey } from "./pagination";
import { beforeKeySql } from "./sorted-page";
import { isoSql, jsonFinisher } from "./view-json";

const CREATED_AT = isoSql(Prisma.sql`r."createdAt"`);

const REVIEW_VIEW_JSON = Prisma.sql`(SELECT row_to_json(v) FROM (SELECT
    r."id", r."agentId", r."jobId", r."reviewerAddress", r."rating", r."comment",
    ${CREATED_AT} AS "createdAt"
  ) v)::text`;

/** A review's view as JSON text (not yet finished: finishReviewJson), beside its page key. */
export interface ReviewJsonRow {
  json: string;
  id: string;
  /** createdAt as toISOString writes it. */
  createdAt: string;
}

/** The text with every reviewerAddress checksummed. */
export const finishReviewJson = jsonFinisher(["reviewerAddress"]);

/**
 * The agent's reviews newest first, after `after` (a page key), at most `limit`, as JSON; or
 * undefined when no agent has `agentId`. The agent's row is read first and its reviews beside
 * it (LATERAL), so that an agent without reviews answers one row without a review.
 */
export async function selectAgentReviewJson(
  db: Db,
  agentId: string,
  after: CursorKey | undefined,
  limit: number,
): Promise<ReviewJsonRow[] | undefined> {
  const keyset = after
    ? Prisma.sql`AND ${beforeKeySql(after, Prisma.sql`r."createdAt", r."id"`)}`
    : Prisma.empty;
  // The page's rows first (the index on agentId, createdAt, id), their JSON only for them.
  const rows = await readRows<{ json: string; id: string | null; createdAt: string | null }>(
    db,
    Prisma.sql`
      SELECT ${REVIEW_VIEW_JSON} AS "json", r."id", ${CREATED_AT} AS "createdAt"
      FROM "agents" a
      LEFT JOIN LATERAL (
        SELECT * FROM "reviews" r
        WHERE r."agentId" = a."id" ${keyset}
        ORDER BY r."createdAt" DESC, r."id" DESC
        LIMIT ${limit}
      ) r ON true
      WHERE a."id" = ${agentId}
      ORDER BY r."createdAt" DESC, r."id" DESC`,
  );
  if (rows.length === 0) return undefined;
  // An agent without reviews (on this page): one row, of nulls.
  return rows.filter((row): row is ReviewJsonRow => row.id !== null);
}
