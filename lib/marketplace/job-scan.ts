// How the rows a job page is cut from are read when the page checks something no index serves
// together with its order: a search's words, a budget range, a poster. Left to choose,
// PostgreSQL walked the order's index and checked each row, trusting estimates that assume the
// filters independent; when they are not (a common word whose jobs are all in another state),
// the walk read the whole table for an empty page (0.9 to 1.7 s at a million jobs), and any
// client could ask for that. So a page is read one of these ways, each bounded:
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
// way costs less, and what).
// When the window would hold enough matches at that rate (a common word) and reading as far
// as them costs under 4 times the rows of reading exactly, it reads the window and, only if it
// fell short (the estimate was wrong), exactly; else (a rare word: few matches to read)
// exactly at once. Comparing the two matters when the filters are few together (118 of
// 101,000 jobs in progress say "topic164"): the first 21 of them are expected within the
// window, 18,000 rows to walk, where reading them all exactly costs the 118 rows and the
// status's index entries. Only for an estimate of no words or one word: for several the
// planner multiplies their frequencies, far too low for words that come together.
// And before the window, when one index serves every filter (the words' index; a status's
// budget range) and the entries to walk are few, it counts the matches there: filters the
// planner takes as independent may never meet (a word only in completed jobs, asked among the
// open; a budget no delivered job has), and the window would read to its end for none.
import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db";
import { readRows } from "@/lib/db/row-reader";
import { whereSql } from "@/lib/kernel/sorted-page";
import { LIMITS } from "@/lib/shared/limits";

export type ScanWay = "window" | "exact" | "words";

/** The index a count walks (JobScan.counted). */
export type Counted = "words" | "budget";

export interface JobScan {
  /** Conditions an index serves with the order: the equality filters and the cursor. */
  seek: Prisma.Sql[];
  /**
   * Whether the seek holds a filter (a status, a category, a budget range by budget), not only
   * a cursor's keyset, which the words' index does not hold: checked on the rows it finds.
   */
  filtered: boolean;
  /**
   * The seek written so that no index serves its status (the "words" way); undefined unless
   * the page searches one word and filters a status.
   */
  seekOnRows?: Prisma.Sql[];
  /** Conditions checked on each row: the search's words, the budget bounds. */
  check: Prisma.Sql[];
  /**
   * Where a count of the matches walks one index serving every condition (countJobScan):
   * "words", the words' index (status, category, poster and the words); "budget", a status's
   * budget range in its b-tree. Undefined when no index serves them all.
   */
  counted?: Counted;
  /** Whether the planner estimates the checks from statistics (not several words). */
  estimable: boolean;
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
  /** What reading exactly (exactWay) costs, in rows read and checked. */
  exactRows: number;
  /** Whether one index serves every condition (JobScan.counted; countJobScan counts there). */
  countable: boolean;
  /** Whether that count costs little (COUNTED_ENTRIES). */
  cheapCount: boolean;
  /** Whether a low estimate may send the page to the exact way at once (WINDOW_OVER_EXACT). */
  trusted: boolean;
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
  return checkedAlone(matches, sought, table) * ENTRIES_PER_ROW < sought;
}

/**
 * The rows the checks alone select (the words' matches, a budget range's rows), the filters
 * taken as independent (as the planner does).
 */
const checkedAlone = (matches: number, sought: number, table: number) =>
  (matches * table) / Math.max(sought, 1);

/**
 * The most index entries a count walks. In the words' index: the seek's and the words' own,
 * estimated as independent. Its cost follows the matches the index finds, about 0.7 µs each,
 * and the entries it decodes: at a million jobs, a word and a status that never meet cost a
 * few ms (the window read to its end: 115 to 150 ms), a common word all of whose 50,000 jobs
 * are in progress 35 ms (the window: 3 to 8 ms). The bound keeps the count to statuses few
 * jobs share, which most words may never meet; a status most jobs share (700,000 open) meets
 * most words, and is read through the window uncounted. In a status's budget range: the
 * range's entries within the status, at most the range's rows (the planner's, from the
 * budget's histogram), in one walk of a b-tree: a range none of the status's jobs are in costs
 * 0.5 ms where the window read 20,000 rows for none (80 to 90 ms).
 */
const COUNTED_ENTRIES = 10 * LIMITS.scanWindow;

/** Whether a count walks at most COUNTED_ENTRIES (never for a table not yet analysed). */
export function countCheap(
  counted: Counted,
  matches: number,
  sought: number,
  table: number,
): boolean {
  if (table <= 0) return false;
  const alone = checkedAlone(matches, sought, table);
  return (counted === "words" ? sought + alone : alone) <= COUNTED_ENTRIES;
}

/**
 * What the exact way costs, in rows (an index entry 1/ENTRIES_PER_ROW of a row): the checks'
 * own matches read and checked, for the "words" way and for a seek of no filter (`q` alone, on
 * any page: the words' index does not hold a cursor's keyset, checked on the rows it finds);
 * for a status's budget range, the matches after the range's entries in its b-tree; else the
 * matches after the seek's entries in the words' index.
 */
function exactWayRows(
  way: ScanEstimate["exactWay"],
  scan: Pick<JobScan, "filtered" | "counted">,
  [matches, sought, table]: [number, number, number],
): number {
  const alone = checkedAlone(matches, sought, table);
  if (way === "words" || !scan.filtered) return alone;
  if (scan.counted === "budget") return matches + alone / ENTRIES_PER_ROW;
  return matches + sought / ENTRIES_PER_ROW;
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
  scan: Pick<JobScan, "seek" | "check" | "seekOnRows" | "filtered" | "counted" | "estimable">,
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
  const exactWay = onRows ? "words" : "exact";
  return {
    matches,
    sought,
    exactWay,
    exactRows: exactWayRows(exactWay, scan, [matches, sought, table]),
    countable: scan.counted !== undefined,
    cheapCount: scan.counted !== undefined && countCheap(scan.counted, matches, sought, table),
    trusted: scan.estimable,
  };
}

/**
 * The statement counting the matches, up to `upTo`. In the words' index: the "exact" way's
 * (the seek's entries intersected in the index, even when the words way reads exactly),
 * stopped at `upTo` rows; its plan is the exact way's, made for every match, and it costs the
 * index's work and the rows read until `upTo` match (a cursor's keyset is checked on the
 * rows), never more than the exact way. A status's budget range: its b-tree walked in budget
 * order until `upTo` match.
 */
export function jobScanCountSql(
  scan: Pick<JobScan, "seek" | "check" | "counted">,
  upTo: number,
): Prisma.Sql {
  if (scan.counted === "budget") {
    // In budget order, so that the planner walks the b-tree and stops at `upTo` (a plan made
    // for every match may scan the table, or build the range's whole bitmap, first).
    return Prisma.sql`SELECT count(*)::int AS "found" FROM (
        SELECT 1 FROM "jobs" ${whereSql([...scan.seek, ...scan.check])}
        ORDER BY "budgetAtomic" LIMIT ${upTo}
      ) "counted"`;
  }
  return Prisma.sql`SELECT count(*)::int AS "found" FROM (
      WITH "matches" AS MATERIALIZED (SELECT 1 FROM "jobs" ${whereSql([...scan.seek, ...scan.check])})
      SELECT 1 FROM "matches" LIMIT ${upTo}
    ) "counted"`;
}

/** How many rows match, up to `upTo` (jobScanCountSql). */
export async function countJobScan(
  db: Db,
  scan: Pick<JobScan, "seek" | "check" | "counted">,
  upTo: number,
): Promise<number> {
  const [row] = await readRows<{ found: number }>(db, jobScanCountSql(scan, upTo));
  return Number(row?.found ?? 0);
}

/** What a read found: the matches it saw (at most what the page needs). */
export type Found<T> = (rows: T[]) => number;

/**
 * The window's rows read beyond the exact way's before reading it exactly at once: an estimate
 * too low (a word common within its status: 50,000 completed jobs say "datasets", estimated
 * at 5,000) makes the exact way read every match, however many, where the window reads its
 * size at most. Not at all for an estimate not `trusted` (several words: "emails emails" in
 * progress, estimated at 257 where 50,000 match, read exactly in 0.4 s; the window holds the
 * page in 5 ms).
 */
const WINDOW_OVER_EXACT = 4;

/**
 * The most rows a count of several words' matches reads to tell an estimate far too low: a
 * quarter of the window. When fewer match, the exact way reads them again: twice at most that.
 */
const COUNTED_ROWS = LIMITS.scanWindow / 4;

export interface JobScanReader<T> {
  read(way: ScanWay): Promise<T[]>;
  /** The matches a read found (at most what the page needs). */
  found: Found<T>;
  /** The matches the page needs. */
  needed: number;
  estimate(): Promise<ScanEstimate | "small">;
  /** How many rows match, up to `upTo` (countJobScan). */
  count(upTo: number): Promise<number>;
}

/**
 * Reads the window when it is worth it (windowFirst), then exactly (the estimate's exact way)
 * if it did not hold the page; else exactly at once.
 */
export async function readJobScan<T>(reader: JobScanReader<T>): Promise<T[]> {
  const estimated = await reader.estimate();
  if (estimated === "small") return reader.read("exact");
  if (await windowFirst(reader, estimated)) {
    const windowed = await reader.read("window");
    if (reader.found(windowed) >= reader.needed) return windowed;
  }
  return reader.read(estimated.exactWay);
}

/**
 * Whether the window is worth reading before the exact way: at the estimated rate of matches
 * among the rows it reads, it would hold `needed` within a few times the rows the exact way
 * reads, and as many rows match. The count is what the estimate cannot know:
 * - filters that never meet (a word only in completed jobs, asked among the open; the planner
 *   takes them as independent) would have the window read all its rows to find none, 115 to
 *   150 ms at a million jobs, where the count finds none in the index (a few ms) and the exact
 *   way reads nothing;
 * - an estimate of several words can be far too low ("emails emails emails", words that come
 *   together): too low for the window, it sent the page to the exact way, every real match
 *   read. Counted up to the matches that would fill the window at their rate (at most
 *   COUNTED_ROWS), the page takes the window when they are there (the count, like the exact
 *   way, follows the matches in the index; it stops reading rows at that many).
 */
async function windowFirst<T>(reader: JobScanReader<T>, estimated: ScanEstimate) {
  const { needed } = reader;
  const { matches, sought, exactRows } = estimated;
  const windowRows = (needed * sought) / Math.max(matches, 1);
  if (windowRows > LIMITS.scanWindow) {
    const filling = Math.ceil((needed * sought) / LIMITS.scanWindow);
    if (estimated.trusted || !estimated.countable || filling > COUNTED_ROWS) return false;
    return (await reader.count(filling)) >= filling;
  }
  if (estimated.trusted && windowRows >= WINDOW_OVER_EXACT * exactRows) return false;
  return !estimated.cheapCount || (await reader.count(needed)) >= needed;
}
