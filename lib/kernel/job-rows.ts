// The public job reads (the list, the search, one job) as JSON text PostgreSQL builds: each
// job's view (toJobView's keys, in its order, with its values: budgets as USDC numbers,
// instants as ISO strings, the poster's `verified`, the attachments' metadata) by
// row_to_json over exactly those columns, in one statement per page, and the text passed
// through to the answer. Building rows, then objects, then JSON in Node cost more than the
// query itself on an uncached read. Only the EIP-55 checksum stays in Node (PostgreSQL has no
// keccak-256): one pass over the page's text for the posters' addresses
// (checksumPosterAddresses, below, by serialize.ts's checksumStoredAddress).
import type { Db } from "@/lib/db";
import { readRows } from "@/lib/db/row-reader";
import { Prisma } from "@/lib/generated/prisma/client";
import { BEFORE_DELIVERY } from "./lifecycle";
import type { KeyedJsonRow } from "./pagination";
import { whereSql } from "./sorted-page";
import { isoSql, usdcSql } from "./view-json";
import { checksumStoredAddress } from "./serialize";

/** A jobs column of `j` as Date#toISOString writes it. */
const isoOf = (column: string) => isoSql(Prisma.raw(`j."${column}"`));

/** BEFORE_DELIVERY as SQL literals (the code's own constants). */
const BEFORE_DELIVERY_SQL = Prisma.raw(BEFORE_DELIVERY.map((status) => `'${status}'`).join(", "));

/**
 * One job's view as JSON, over `j` (a jobs row). atomicToUsdc's number: the exact decimal
 * (at most 10 + 6 digits, within a double's round trip) without trailing zeros, as JSON
 * writes it. array_to_json and row_to_json write compact JSON (json_agg would not). The
 * attachments are aggregated only for a job that has some (a delivery's): most jobs in a list
 * have none, and their empty aggregate cost about a sixth of a 50-job page's statement at a
 * million jobs where an EXISTS probe of the index costs little (pgbench, 2026-11-27, three
 * alternated pairs: 4,579, 4,974, 5,116 against 5,533, 5,903, 5,971 pages a second). A job not
 * yet delivered (lifecycle.ts's BEFORE_DELIVERY) has none and is not probed: the probes were
 * about a sixth of an open-jobs page's PostgreSQL CPU at a million jobs (2026-11-28). The CASE
 * orders the two tests (an AND's operands may run in any order). The poster's flag is an
 * index-only probe of the verified wallets' partial index (migration
 * 20261201000000_verified_wallets_idx), where the primary key's lookup read the wallet's row.
 */
const JOB_VIEW_JSON = Prisma.sql`(SELECT row_to_json(v) FROM (SELECT
    j."id", j."title", j."description", j."category",
    ${usdcSql(Prisma.sql`j."budgetAtomic"`)} AS "budgetUsdc",
    j."timelineDays", j."requirements", j."handle", j."status", j."posterAddress",
    EXISTS (SELECT FROM "wallets" w WHERE w."address" = j."posterAddress" AND w."verified")
      AS "posterVerified",
    j."assignedAgentId", j."acceptedProposalId", j."paymentTxHash",
    CASE WHEN j."status" IN (${BEFORE_DELIVERY_SQL}) THEN '[]'
      WHEN EXISTS (SELECT FROM "attachments" a WHERE a."jobId" = j."id")
      THEN (SELECT array_to_json(array_agg(
              (SELECT r FROM (SELECT a."id", a."name", a."size", a."type") r)
              ORDER BY a."createdAt", a."id"))
            FROM "attachments" a WHERE a."jobId" = j."id")
      ELSE '[]' END AS "attachments",
    ${isoOf("createdAt")} AS "createdAt", ${isoOf("updatedAt")} AS "updatedAt",
    ${isoOf("deliveredAt")} AS "deliveredAt", ${isoOf("completedAt")} AS "completedAt"
  ) v)::text`;

/** A job's view as JSON text, beside its page key (for the next page's cursor). */
export interface JobJsonRow extends KeyedJsonRow {
  /** How many jobs a relevance page was ranked among (job-search.ts). */
  candidateCount?: number;
}

/**
 * A sorted page's row: a job's, or one without a job, carrying only the id page's extra
 * columns: the row an empty relevance page answers so that its candidateCount still comes back
 * (job-search.ts).
 */
export type SortedJobJsonRow =
  JobJsonRow | { id: null; createdAt: null; sortValue: null; candidateCount?: number };

/** Whether a sorted page's row holds a job. */
export const holdsJob = (row: SortedJobJsonRow): row is JobJsonRow => row.id !== null;

const ROW_COLUMNS = Prisma.sql`${JOB_VIEW_JSON} AS "json"`;

/** What a row needs besides its JSON: its page key. */
const KEY_COLUMNS = Prisma.sql`j."id", ${isoOf("createdAt")} AS "createdAt"`;

const POSTER_KEY = '"posterAddress":"';
const ADDRESS = /^0x[0-9a-fA-F]{40}"/;

/**
 * The text with every posterAddress checksummed (checksumStoredAddress: as written when EIP-55
 * text). Only a key can be written `"posterAddress":"` with bare quotes: inside a JSON string
 * every quote is escaped. Found with indexOf rather than jsonFinisher's global regular
 * expression: a fifth of its time over a 37 KB page (2026-11-27).
 */
export function checksumPosterAddresses(json: string): string {
  const parts: string[] = [];
  let copied = 0;
  // As the regular expression /"posterAddress":"(0x[0-9a-fA-F]{40})"/g would: a match takes its
  // closing quote along, a miss moves one character on.
  for (let at = json.indexOf(POSTER_KEY); at !== -1; at = json.indexOf(POSTER_KEY, at)) {
    const address = at + POSTER_KEY.length;
    const candidate = json.slice(address, address + 43);
    if (!ADDRESS.test(candidate)) {
      at += 1;
      continue;
    }
    at = address + 43;
    const stored = candidate.slice(0, 42);
    const answered = checksumStoredAddress(stored);
    if (answered === stored) continue;
    parts.push(json.slice(copied, address), answered);
    copied = address + 42;
  }
  if (copied === 0) return json;
  parts.push(json.slice(copied));
  return parts.join("");
}

const jsonRows = (db: Db, statement: Prisma.Sql) => readRows<JobJsonRow>(db, statement);

/**
 * Jobs matching `conditions` (SQL over the jobs table's columns) newest first, at most
 * `limit`: the statement selectNewestJobJson takes when an index serves every condition.
 */
export function newestJobsSql(conditions: Prisma.Sql[], limit: number): Prisma.Sql {
  return Prisma.sql`SELECT * FROM "jobs" ${whereSql(conditions)} ORDER BY "createdAt" DESC, "id" DESC LIMIT ${limit}`;
}

/**
 * The jobs rows `source` answers (a statement selecting whole jobs rows, e.g. newestJobsSql's
 * or job-scan.ts's), newest first, as JSON. The filter and the order run on the jobs table
 * alone (its indexes), and the view's subqueries only for the rows returned.
 */
export function selectNewestJobJson(db: Db, source: Prisma.Sql) {
  return jsonRows(db, newestJobJsonSql(source));
}

/** The statement of selectNewestJobJson (for EXPLAIN in npm run bench). */
export function newestJobJsonSql(source: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    SELECT ${ROW_COLUMNS}, ${KEY_COLUMNS}
    FROM (${source}) j
    ORDER BY j."createdAt" DESC, j."id" DESC`;
}

/**
 * The jobs an id page names (`idPage`: a statement answering "id", "createdAt" and
 * "sortValue", as lib/kernel/sorted-page.ts writes it), as JSON, in the page's order
 * (`desc`: the sort's direction), in one statement.
 */
export function selectSortedJobJson(db: Db, idPage: Prisma.Sql, desc: boolean, extra?: string[]) {
  return readRows<SortedJobJsonRow>(db, sortedJobJsonSql(idPage, desc, extra));
}

/**
 * selectSortedJobJson's statement; `extra`: more of the id page's columns, answered as they are
 * (on a row without a job too).
 */
export function sortedJobJsonSql(
  idPage: Prisma.Sql,
  desc: boolean,
  extra: string[] = [],
): Prisma.Sql {
  const direction = Prisma.raw(desc ? "DESC" : "ASC");
  const more = Prisma.raw(extra.map((column) => `, p."${column}"`).join(""));
  return Prisma.sql`
    SELECT ${ROW_COLUMNS}, ${KEY_COLUMNS}, p."sortValue"${more}
    FROM (${idPage}) p LEFT JOIN "jobs" j ON j."id" = p."id"
    ORDER BY p."sortValue" ${direction}, p."createdAt" ${direction}, p."id" ${direction}`;
}

/** One job's view as JSON text (checksummed), or undefined when no job has `id`. */
export async function selectJobJson(db: Db, id: string): Promise<string | undefined> {
  const [row] = await readRows<{ json: string }>(
    db,
    Prisma.sql`SELECT ${ROW_COLUMNS} FROM "jobs" j WHERE j."id" = ${id}`,
  );
  return row && checksumPosterAddresses(row.json);
}
