// How the rows a job page is cut from are read when the page checks something no index serves
// together with its order: a search's words, a budget range, a poster. Left to choose,
// PostgreSQL walked the order's index and checked each row, trusting estimates that assume the
// filters independent; when they are not (a common word whose jobs are all in another state),
// the walk read the whole table for an empty page (0.9 to 1.7 s at a million jobs), and any
// client could ask for that. So a page is read one of two ways, each bounded:
//
// - "window": the first LIMITS.scanWindow rows in the page's order that the indexed filters
//   (status, category, the cursor) select, then the checks on those only. When they hold
//   enough matches, these are exactly the first matches in order.
// - "exact": every row all the filters select (the GIN index over the words and the filter
//   columns intersects them without reading the table), then sorted: its cost is the number
//   of matches.
// - "words": the same rows, but the index reads the words' matches alone and each is checked
//   for the status on its row. Intersecting costs the status's whole list in the index (at a
//   million jobs, 2.5 ms of a 3 ms search for a rare word among 700,000 open jobs); checking
//   costs a row per match of the words. Chosen when the words' matches are that few, for one
//   word only (job-search.ts's seekOnRows: an estimate of several words can be far too low).
//
// readJobScan reads a small table (under the window's size) exactly at once. Else it asks the
// planner how many rows the filters select, with and without the checks (and so which exact
// way costs less).
// When the window would hold enough matches at that rate (a common word), it reads the window
// and, only if it fell short (the estimate was wrong), exactly; else (a rare word: few matches
// to read) exactly at once.
import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db";
import { readRows } from "@/lib/db/row-reader";
import { whereSql } from "@/lib/kernel/sorted-page";
import { LIMITS } from "@/lib/shared/limits";

export type ScanWay = "window" | "exact" | "words";

export interface JobScan {
  /** Conditions an index serves with the order: the equality filters and the cursor. */
  seek: Prisma.Sql[];
  /**
   * The seek written so that no index serves its status (the "words" way); undefined unless
   * the page searches one word and filters a status.
   */
  seekOnRows?: Prisma.Sql[];
  /** Conditions checked on each row: the search's words, the budget bounds. */
  check: Prisma.Sql[];
  /** `ORDER BY` over the jobs table's unqualified columns; it must end with "id". */
  order: Prisma.Sql;
  /** The most rows wanted. */
  limit: number;
  /**
   * The columns answered, when not whole rows: those the order needs and what the caller reads
   * of each row (a relevance page ranks 500 candidates by their words and reads 50 whole).
   * The exact way carries them with the matches instead of reading each row again by id.
   */
  columns?: readonly string[];
}

/**
 * The statement answering the first `limit` jobs rows (whole rows, or `columns`; in no
 * promised order: the caller orders them) that match `seek` and `check`, in `order`, read
 * `way`.
 */
export function jobScanSql(way: ScanWay, scan: JobScan): Prisma.Sql {
  const { check, order, limit, columns } = scan;
  const seek = way === "words" ? (scan.seekOnRows ?? scan.seek) : scan.seek;
  const answered = columns ? Prisma.raw(columns.map((name) => `"${name}"`).join(", ")) : undefined;
  if (way === "window") {
    return Prisma.sql`SELECT ${answered ?? Prisma.sql`*`} FROM (
      SELECT * FROM "jobs" ${whereSql(seek)} ORDER BY ${order} LIMIT ${LIMITS.scanWindow}
    ) "window" ${whereSql(check)} ORDER BY ${order} LIMIT ${limit}`;
  }
  // MATERIALIZED: the matches are read whole (by the bitmap of the indexes), never by walking
  // the order's index.
  if (answered) {
    return Prisma.sql`SELECT * FROM (
      WITH "matches" AS MATERIALIZED (
        SELECT ${answered} FROM "jobs" ${whereSql([...seek, ...check])}
      )
      SELECT * FROM "matches" ORDER BY ${order} LIMIT ${limit}
    ) "first"`;
  }
  // Whole rows: only the matches' keys are kept, and the first rows read again by id.
  return Prisma.sql`SELECT "jobs".* FROM (
      WITH "matches" AS MATERIALIZED (
        SELECT "id", "createdAt", "budgetAtomic" FROM "jobs" ${whereSql([...seek, ...check])}
      )
      SELECT "id" AS "matchId" FROM "matches" ORDER BY ${order} LIMIT ${limit}
    ) "first" JOIN "jobs" ON "jobs"."id" = "first"."matchId"`;
}

/**
 * The planner's estimates: the rows all the filters select, and those the seek alone does;
 * and which way reads them exactly.
 */
export interface ScanEstimate {
  matches: number;
  sought: number;
  exactWay: "exact" | "words";
}

/**
 * How many index entries cost as much to intersect as one row to read and check: at a million
 * jobs a rare word's rows cost about 0.9 µs each to read and check, an entry of a status's list
 * about 2.5 ns to walk (pgbench, 2026-11-26); the ratio is rounded down, towards the index,
 * whose cost does not grow with the words' matches.
 */
const ENTRIES_PER_ROW = 250;

/**
 * Whether the words' own matches (the matches were the seek left out; the planner assumes
 * the filters independent) cost less to read and check than the seek's entries in the index.
 * Never for a table not yet analysed (`table` -1): nothing to go by.
 */
export function seekOnRowsCheaper(matches: number, sought: number, table: number): boolean {
  if (table <= 0) return false;
  const wordMatches = (matches * table) / Math.max(sought, 1);
  return wordMatches * ENTRIES_PER_ROW < sought;
}

interface PlanRows {
  Plan: { Plans?: { "Plan Rows": number }[] };
}

/** How long the jobs table's size (the planner's, from the last ANALYZE) is taken as known. */
const TABLE_ROWS_TTL_MS = 60_000;
const tableRows = new WeakMap<Db, { rows: number; at: number }>();

/** The jobs table's rows by the planner's last count (-1 before any ANALYZE). */
async function jobsTableRows(db: Db): Promise<number> {
  let known = tableRows.get(db);
  if (!known || Date.now() - known.at > TABLE_ROWS_TTL_MS) {
    const [row] = await readRows<{ rows: number }>(
      db,
      Prisma.sql`SELECT "reltuples"::float8 AS "rows" FROM "pg_class" WHERE "oid" = '"jobs"'::regclass`,
    );
    known = { rows: Number(row?.rows ?? -1), at: Date.now() };
    tableRows.set(db, known);
  }
  return known.rows;
}

/**
 * Asks the planner (EXPLAIN without running anything: no rows are read); "small" when the
 * table is (under LIMITS.scanWindow rows by the planner's last count; not known to be small
 * before any ANALYZE), and every way costs little. A hint for speed only: every way reads the
 * same page.
 */
export async function estimateJobScan(
  db: Db,
  scan: Pick<JobScan, "seek" | "check" | "seekOnRows">,
): Promise<ScanEstimate | "small"> {
  const table = await jobsTableRows(db);
  if (table >= 0 && table < LIMITS.scanWindow) return "small";
  const [row] = await readRows<{ "QUERY PLAN": unknown }>(
    db,
    Prisma.sql`EXPLAIN (FORMAT JSON)
      SELECT 1 FROM "jobs" ${whereSql([...scan.seek, ...scan.check])}
      UNION ALL SELECT 1 FROM "jobs" ${whereSql(scan.seek)}`,
  );
  const plan = row!["QUERY PLAN"];
  const [explained] = (typeof plan === "string" ? JSON.parse(plan) : plan) as PlanRows[];
  const [matches = 0, sought = 0] = (explained!.Plan.Plans ?? []).map(
    (child) => child["Plan Rows"],
  );
  const onRows = scan.seekOnRows !== undefined && seekOnRowsCheaper(matches, sought, table);
  return { matches, sought, exactWay: onRows ? "words" : "exact" };
}

/** What a read found: the matches it saw (at most what the page needs). */
export type Found<T> = (rows: T[]) => number;

/**
 * Reads the window when, at the estimated rate of matches among the rows it reads, it would
 * hold `needed`; then exactly (the estimate's exact way) if it did not. Else exactly at once.
 */
export async function readJobScan<T>(
  read: (way: ScanWay) => Promise<T[]>,
  found: Found<T>,
  needed: number,
  estimate: () => Promise<ScanEstimate | "small">,
): Promise<T[]> {
  const estimated = await estimate();
  if (estimated === "small") return read("exact");
  const { matches, sought, exactWay } = estimated;
  if ((needed * sought) / Math.max(matches, 1) <= LIMITS.scanWindow) {
    const windowed = await read("window");
    if (found(windowed) >= needed) return windowed;
  }
  return read(exactWay);
}
