// Job rows for the public reads (the list, the search, one job) in one statement each: the
// job's columns, its poster's `verified` and its attachments' metadata aggregated as JSON.
// Prisma's `include` costs three queries per list (jobs, wallets, attachments), each a
// round-trip and a decoding pass.
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import type { JobRow } from "./serialize";

/** The columns a job view needs (never `searchVector`, never attachment bytes). */
const SELECT_JOB_ROW = Prisma.sql`
  SELECT j."id", j."title", j."description", j."category", j."budgetAtomic", j."timelineDays",
         j."requirements", j."handle", j."status", j."posterAddress", j."assignedAgentId",
         j."acceptedProposalId", j."paymentTxHash", j."createdAt", j."updatedAt",
         j."deliveredAt", j."completedAt",
         (SELECT w."verified" FROM "wallets" w WHERE w."address" = j."posterAddress")
           AS "posterVerified",
         (SELECT COALESCE(json_agg(json_build_object('id', a."id", 'name', a."name",
                   'size', a."size", 'type', a."type") ORDER BY a."createdAt", a."id"), '[]')
            FROM "attachments" a WHERE a."jobId" = j."id")::text AS "attachmentsJson"`;

type RawJobRow = Omit<JobRow, "poster" | "attachments" | "searchVector"> & {
  posterVerified: boolean | null;
  attachmentsJson: string;
};

function toJobRow({ posterVerified, attachmentsJson, ...job }: RawJobRow): JobRow {
  return {
    ...job,
    poster: { verified: posterVerified === true },
    attachments: JSON.parse(attachmentsJson) as JobRow["attachments"],
  };
}

/**
 * Jobs matching `conditions` (SQL over the jobs table's columns) newest first, at most
 * `limit`. The filter and the order run on the jobs table alone (its indexes), and the
 * per-row subqueries only for the rows returned.
 */
export async function selectNewestJobRows(
  db: Db,
  conditions: Prisma.Sql[],
  limit: number,
): Promise<JobRow[]> {
  return (await db.$queryRaw<RawJobRow[]>(newestJobRowsSql(conditions, limit))).map(toJobRow);
}

/** The statement of selectNewestJobRows (for EXPLAIN in npm run bench). */
export function newestJobRowsSql(conditions: Prisma.Sql[], limit: number): Prisma.Sql {
  const where = conditions.length
    ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`
    : Prisma.empty;
  return Prisma.sql`
    ${SELECT_JOB_ROW}
    FROM (SELECT * FROM "jobs" ${where} ORDER BY "createdAt" DESC, "id" DESC LIMIT ${limit}) j
    ORDER BY j."createdAt" DESC, j."id" DESC`;
}

/** The rows of `ids`, in the order of `ids` (ids without a row are left out). */
export async function selectJobRowsByIds(db: Db, ids: string[]): Promise<JobRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.$queryRaw<RawJobRow[]>`
    ${SELECT_JOB_ROW} FROM "jobs" j WHERE j."id" = ANY(${ids}::text[])`;
  const byId = new Map(rows.map((row) => [row.id, toJobRow(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
