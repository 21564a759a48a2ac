// The ways a filtered job page is read (job-scan.ts), on PGlite and PostgreSQL: each gives
// the page the filters and the order define, for every list shape; a search whose word and
// filter never meet (the word only in completed jobs, the filter open) is counted in the index,
// then read exactly, never through the window or the table, and so is a status and a budget
// range that never meet; and sort=newest with q is newest first.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client";
import { decodeCursor, encodeSortedCursor } from "@/lib/kernel/pagination";
import { beforeKeySql } from "@/lib/kernel/sorted-page";
import { LIMITS } from "@/lib/shared/limits";
import { listJobsQuerySchema } from "@/lib/shared/schemas/jobs";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { newWallet } from "@/tests/helpers/in-process";
import {
  countCheap,
  countJobScan,
  estimateJobScan,
  jobScanCountSql,
  jobScanSql,
  readJobScan,
  type ScanWay,
  seekOnRowsCheaper,
} from "./job-scan";
import { newestScan } from "./job-search";
import { jobPageSql, jobPageStatements, listJobs } from "./jobs";

// The ways listJobs reads (jobScanSql's statements), seen through a spy on the real one.
vi.mock("./job-scan", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./job-scan")>();
  return {
    ...actual,
    jobScanSql: vi.fn(actual.jobScanSql),
    countJobScan: vi.fn(actual.countJobScan),
  };
});

/** More jobs than the window holds: job g is completed and says "zebra" when g % 10 = 9. */
const JOBS = LIMITS.scanWindow + 2_000;

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** A statement's text and parameters, to compare two. */
const textOf = (statement: Prisma.Sql) => ({ text: statement.text, values: statement.values });

/** Every node of a plan, depth first. */
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

// A page needing 100 matches, the window 20,000 rows: it is read first when the planner's rate
// of matches among the rows it reads puts 100 within them, within 4 times the rows the exact way
// reads, and the count finds as many matches.
describe("which ways a page is read, by the estimate, the count and what the window found", () => {
  const common = {
    matches: 5_000,
    sought: 100_000,
    exactRows: 5_400,
    countable: true,
    cheapCount: true,
  };
  const severalWords = {
    matches: 400,
    sought: 100_000,
    exactRows: 800,
    countable: false,
    cheapCount: false,
    trusted: false,
  };
  it.each([
    ["a common word: the window holds the page", common, 100, 100, ["count", "window"]],
    [
      "the estimate was wrong: the window fell short",
      common,
      100,
      40,
      ["count", "window", "exact"],
    ],
    [
      "the window at its edge: 100 in 20,000 rows, a quarter of the exact way's",
      { matches: 500, sought: 100_000, exactRows: 5_001, countable: true, cheapCount: true },
      100,
      100,
      ["count", "window"],
    ],
    [
      "100 in more rows than the window's: exactly at once",
      { matches: 499, sought: 100_000, exactRows: 100_000, countable: true, cheapCount: true },
      100,
      100,
      ["exact"],
    ],
    [
      // As 118 of 101,067 jobs in progress say "topic164" at a million jobs, and the window
      // walks 18,000 rows for 21 of them; here 600 for 100, the window 16,845 rows, the exact
      // way the 600 and the status's 101,067 index entries (1,004 rows' worth).
      "the window walking 4 times the exact way's rows: exactly at once",
      { matches: 600, sought: 101_067, exactRows: 1_004, countable: true, cheapCount: true },
      100,
      100,
      ["exact"],
    ],
    [
      // Several words: their frequencies multiplied, "emails emails" estimated at 257 of
      // 101,067 in progress where 50,000 match; read exactly, the page took 0.4 s.
      "the same, an estimate of several words: the window, not trusted so low",
      {
        matches: 600,
        sought: 101_067,
        exactRows: 1_004,
        countable: true,
        cheapCount: true,
        trusted: false,
      },
      100,
      100,
      ["count", "window"],
    ],
    [
      // "emails emails emails": estimated at 400 of 100,000 where 10,000 match. The window
      // would hold 100 at 500 matches' rate among the 100,000: counted up to 500.
      "several words estimated too few for the window: counted, there, the window",
      { ...severalWords, countable: true },
      10_000,
      100,
      ["count 500", "window"],
    ],
    [
      "several words estimated too few, and they are: counted, then exactly",
      { ...severalWords, countable: true },
      499,
      100,
      ["count 500", "exact"],
    ],
    [
      "the same with a budget range (not countable): exactly at once",
      severalWords,
      10_000,
      100,
      ["exact"],
    ],
    [
      "the same, over 5,000 rows to count (2,000,000 sought): exactly at once",
      { ...severalWords, countable: true, matches: 8_000, sought: 2_000_000, exactRows: 16_000 },
      100_000,
      100,
      ["exact"],
    ],
    [
      "filters that never meet, estimated common: counted, then exactly",
      common,
      0,
      0,
      ["count", "exact"],
    ],
    ["fewer match than the page needs: counted, then exactly", common, 99, 99, ["count", "exact"]],
    [
      "a count too costly: the window uncounted",
      { ...common, cheapCount: false },
      0,
      0,
      ["window", "exact"],
    ],
    [
      "a budget range: the window uncounted",
      { ...common, countable: false, cheapCount: false },
      0,
      0,
      ["window", "exact"],
    ],
    [
      "nothing expected",
      { matches: 0, sought: 100_000, exactRows: 400, countable: true, cheapCount: true },
      100,
      100,
      ["exact"],
    ],
    ["a small table: exactly, without asking", "small", 100, 100, ["exact"]],
    [
      "a rare word, a common status: the words' rows",
      {
        matches: 499,
        sought: 100_000,
        exactRows: 4_990,
        countable: true,
        cheapCount: true,
        exactWay: "words",
      },
      100,
      100,
      ["words"],
    ],
    [
      "fell short, a common status: the words' rows",
      { ...common, exactWay: "words" },
      100,
      40,
      ["count", "window", "words"],
    ],
  ] as const)("%s", async (_name, estimate, matching, inWindow, ways) => {
    const asked: string[] = [];
    const rows = await readJobScan({
      read: async (way) => {
        asked.push(way);
        return Array.from({ length: way === "window" ? inWindow : 100 }, () => way);
      },
      found: (page) => page.length,
      needed: 100,
      estimate: async () =>
        estimate === "small" ? estimate : { exactWay: "exact", trusted: true, ...estimate },
      count: async (upTo) => {
        asked.push(upTo === 100 ? "count" : `count ${upTo}`);
        return Math.min(upTo, matching);
      },
    });
    expect(asked).toEqual(ways);
    expect(rows[0]).toBe(ways.at(-1));
  });
});

// A status most jobs share has a long list in the index: intersecting a rare word's few
// matches with it cost more than checking their rows (2.5 of 3 ms at a million jobs).
describe("which exact way: the status intersected in the index, or checked on the words' rows", () => {
  it.each([
    ["a rare word among 700,000 open jobs of 1M (topic123)", [291, 700_000, 1_000_000], true],
    ["the same word among 100,000 in progress", [41, 100_000, 1_000_000], false],
    ["a common word among the open", [35_000, 700_000, 1_000_000], false],
    ["22,000 jobs: every status's list is short", [99, 19_800, 22_000], false],
    ["nothing sought", [0, 0, 1_000_000], false],
    ["a table never analysed: nothing to go by", [16, 280_000, -1], false],
  ] as const)("%s", (_name, [matches, sought, table], onRows) => {
    expect(seekOnRowsCheaper(matches, sought, table)).toBe(onRows);
  });
});

// A count walks, in the words' index, the seek's entries and the words' own; in a status's
// budget range, the range's entries within the status: at most 200,000 either way.
describe("whether the matches are counted before the window: the index entries it walks", () => {
  it.each([
    ["a common word among 100,000 in progress of 1M", "words", [5_000, 100_000, 1_000_000], true],
    ["the same among 700,000 open: 32 ms", "words", [35_000, 700_000, 1_000_000], false],
    [
      "no status: the word's 50,000 among every job",
      "words",
      [50_000, 1_000_000, 1_000_000],
      false,
    ],
    ["22,000 jobs", "words", [1_980, 19_800, 22_000], true],
    ["a table never analysed: nothing to go by", "words", [1_980, 19_800, -1], false],
    // 37,000 jobs budgeted 369 to 387 USDC; the status's 102,000 entries are not walked.
    ["a budget range among 102,000 completed", "budget", [3_818, 102_133, 1_000_000], true],
    // 10,000 jobs in the range: the 700,000 open ones' entries would be walked in the words'
    // index, not in the b-tree.
    ["a narrow range among 700,000 open", "budget", [7_000, 700_000, 1_000_000], true],
    ["a range 900,000 jobs are in", "budget", [630_000, 700_000, 1_000_000], false],
    ["a budget range, a table never analysed", "budget", [10, 100, -1], false],
  ] as const)("%s", (_name, index, [matches, sought, table], counted) => {
    expect(countCheap(index, matches, sought, table)).toBe(counted);
  });
});

describe.each(DB_KINDS)("job pages read by window or exactly, on %s", (kind) => {
  let database: TestDatabase;
  const poster = newWallet().address;
  const other = newWallet().address;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    await database.db.wallet.createMany({ data: [{ address: poster }, { address: other }] });
    await database.db.$executeRaw`
      INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic",
        "timelineDays", "requirements", "handle", "status", "posterAddress", "createdAt",
        "updatedAt")
      SELECT 'job_scan_' || lpad(g::text, 6, '0'),
             CASE WHEN g % 10 = 9 THEN 'zebra crossing ' || g
                  WHEN g % 7 = 0 THEN 'giraffe survey ' || g ELSE 'plain job ' || g END,
             'Stripes and spots.',
             (CASE WHEN g % 3 = 0 THEN 'data' ELSE 'research' END)::"Category",
             (1 + g % 50)::bigint * 1000000, 1, ARRAY[]::text[], '@h',
             (CASE WHEN g % 10 = 9 THEN 'completed' ELSE 'open' END)::"JobStatus",
             CASE WHEN g % 1000 = 0 THEN ${other} ELSE ${poster} END,
             TIMESTAMP '2026-01-01' + make_interval(secs => g / 2),
             TIMESTAMP '2026-01-01' + make_interval(secs => g / 2)
      FROM generate_series(1, ${JOBS}) AS g`;
    await database.db.$executeRawUnsafe(`ANALYZE "jobs"`);
  }, 240_000);
  afterAll(() => database?.close());

  const run = async (query: Record<string, string>, way: ScanWay) => {
    const statement = jobPageSql(listJobsQuerySchema.parse(query), way);
    const rows = await database.db.$queryRaw<{ id: string }[]>(statement);
    return rows.map((row) => row.id);
  };

  /**
   * The statement's plan as run. `indexOnly`: with sequential scans off, as PostgreSQL plans it
   * on a table large enough (this one is small, and a scan of it cheaper than any index).
   */
  const jobsScans = (query: Record<string, string>, way: ScanWay, indexOnly = false) =>
    statementScans(jobPageSql(listJobsQuerySchema.parse(query), way), indexOnly);
  const statementScans = async (statement: Prisma.Sql, indexOnly: boolean) => {
    const explained = Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`;
    const [, [row]] = await database.db.$transaction([
      database.db.$executeRawUnsafe(`SET LOCAL enable_seqscan = ${indexOnly ? "off" : "on"}`),
      database.db.$queryRaw<{ "QUERY PLAN": unknown }[]>(explained),
    ]);
    const plan = row!["QUERY PLAN"];
    const parsed = (typeof plan === "string" ? JSON.parse(plan) : plan) as { Plan: PlanNode }[];
    return nodes(parsed[0]!.Plan).filter((node) => node["Relation Name"] === "jobs");
  };
  /** The jobs table's scans, but for the page's own rows read again by id. */
  const explain = async (query: Record<string, string>, way: ScanWay, indexOnly = false) =>
    (await jobsScans(query, way, indexOnly)).filter((node) => node["Index Name"] !== "jobs_pkey");

  /** Rows a scan passed on (`Actual Rows`) and rows it read to drop them. */
  const passed = (scans: PlanNode[]) =>
    scans.reduce((sum, node) => sum + node["Actual Rows"] * node["Actual Loops"], 0);
  const read = (scans: PlanNode[]) =>
    passed(scans) +
    scans.reduce(
      (sum, node) =>
        sum + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0),
      0,
    );

  it.each([
    ["newest, a word", { q: "giraffe", sort: "newest", limit: "20" }],
    ["newest, a word and a status", { q: "zebra", status: "completed", sort: "newest" }],
    ["newest, a budget range", { minBudgetUsdc: "3", maxBudgetUsdc: "4", limit: "30" }],
    ["newest, a poster", { poster: other, limit: "10" }],
    ["budget, a word and a category", { q: "giraffe", category: "data", sort: "budget_desc" }],
    ["budget ascending, a range", { minBudgetUsdc: "10", maxBudgetUsdc: "10", sort: "budget_asc" }],
    ["relevance, a word and a status", { q: "zebra or giraffe", status: "open", limit: "25" }],
  ] as const)("%s: the same page every way", async (_name, query) => {
    const exact = await run(query, "exact");
    expect(exact.length).toBeGreaterThan(0);
    expect(await run(query, "window")).toEqual(exact);
    expect(await run(query, "words")).toEqual(exact);
    const page = await listJobs(database.db, listJobsQuerySchema.parse(query));
    const limit = Number("limit" in query ? query.limit : LIMITS.defaultPageSize);
    expect(page.items.map((job) => job.id)).toEqual(exact.slice(0, limit));
  });

  // Outside UTC too: node-postgres writes a Date parameter in the process's time zone.
  it.for(["UTC", "America/New_York"])("newest pages follow their cursors (TZ=%s)", async (zone) => {
    const saved = process.env.TZ;
    process.env.TZ = zone;
    try {
      for (const filters of [{ status: "completed" }, { q: "zebra", sort: "newest" }]) {
        const page = (extra: Record<string, string>) =>
          listJobs(database.db, listJobsQuerySchema.parse({ ...filters, ...extra }));
        const first = await page({ limit: "3" });
        const second = await page({ limit: "3", cursor: first.nextCursor! });
        const both = await page({ limit: "6" });
        const ids = [...first.items, ...second.items].map((job) => job.id);
        expect(ids).toEqual(both.items.map((job) => job.id));
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it("sort=newest with q is newest first, over every match", async () => {
    const page = await listJobs(
      database.db,
      listJobsQuerySchema.parse({ q: "zebra", sort: "newest", limit: "3" }),
    );
    const newest = Math.floor((JOBS - 9) / 10) * 10 + 9;
    expect(page.items.map((job) => job.id)).toEqual(
      [newest, newest - 10, newest - 20].map((g) => `job_scan_${String(g).padStart(6, "0")}`),
    );
  });

  // A cursor past the last of the window's candidates (a forged one, or one the newest jobs
  // moved on from) answers an empty page: the window held its 500 candidates all the same, so
  // the exact way (every match of the word, the whole table for a word every job has) must not
  // be read for it.
  it("a relevance page past its candidates reads the window alone", async () => {
    const past = encodeSortedCursor({
      createdAt: new Date("2026-01-01T00:00:00.000Z"),
      id: "job_scan_000000",
      sort: "relevance",
      value: "0",
    });
    for (const cursor of [undefined, past]) {
      const { page, ways } = await waysRead({
        q: "giraffe",
        limit: "5",
        ...(cursor && { cursor }),
      });
      expect(page.items.length).toBe(cursor ? 0 : 5);
      // The window once (its statement counts the candidates beside an empty page), never exactly.
      expect(ways).toEqual(["window"]);
    }
  });

  // The rank reads the candidates' words and the page's key only: the 500 candidates' whole
  // rows, read again by id, once cost half the statement at a million jobs.
  it("a relevance page read exactly reads each match once, and only its own rows again", async () => {
    const query = { q: "giraffe", status: "open", limit: "5" };
    const matches = Array.from({ length: JOBS }, (_, i) => i + 1).filter(
      (g) => g % 10 !== 9 && g % 7 === 0,
    ).length;
    expect(matches).toBeGreaterThan(LIMITS.rankedMatches);
    const scans = await jobsScans(query, "exact", true);
    expect(read(scans)).toBe(matches + 6);
    const again = scans.filter((node) => node["Index Name"] === "jobs_pkey");
    expect(passed(again)).toBe(6);
  });

  // The "words" way: the index finds the words' jobs alone and each row is checked for its
  // status (which way the estimate picks: seekOnRowsCheaper's table).
  it("the words way checks the status on the rows the words' index finds", async () => {
    const query = { q: "12345", status: "open", sort: "newest" };
    const [scan] = await explain(query, "words", true);
    expect(scan?.["Node Type"]).toBe("Bitmap Heap Scan");
    expect(JSON.stringify(scan)).toMatch(/"Filter":"\(\(status\)::text = /);
    const exact = await explain(query, "exact", true);
    expect(JSON.stringify(exact)).not.toMatch(/::text = /);
    expect(await run(query, "words")).toEqual(["job_scan_012345"]);
    // Without a status or without words, the words way is the exact way.
    const scanOf = (q: Record<string, string>) =>
      newestScan(listJobsQuerySchema.parse({ ...q, sort: "newest" }), []);
    expect(scanOf({ q: "12345" }).seekOnRows).toBeUndefined();
    // Several words: their estimate multiplies their frequencies, too low for words that
    // always come together; the words way would read every job that has them.
    for (const q of ["zebra crossing", '"zebra crossing"', "zebra -giraffe", "zebra or giraffe"]) {
      expect(scanOf({ q, status: "open" }).seekOnRows).toBeUndefined();
    }
    expect(scanOf({ q: " 12345 ", status: "open" }).seekOnRows).toBeDefined();
    // Past the first page, newest first and by budget: the cursor bounds the words way too.
    for (const sort of ["newest", "budget_desc"]) {
      const first = { q: "giraffe", status: "open", sort, limit: "3" };
      const { nextCursor } = await listJobs(database.db, listJobsQuerySchema.parse(first));
      const next = { ...first, cursor: nextCursor! };
      const exactNext = await run(next, "exact");
      expect(exactNext.length).toBe(4);
      expect(await run(next, "words")).toEqual(exactNext);
    }
    expect(scanOf({ status: "open", minBudgetUsdc: "3" }).seekOnRows).toBeUndefined();
    const estimate = await estimateJobScan(database.db, scanOf({ q: "zebra", status: "open" }));
    expect(estimate).toMatchObject({ exactWay: "exact" });
  });

  /** The ways listJobs read the page `query` asks, in order, and the counts it made. */
  const waysRead = async (query: Record<string, string>) => {
    vi.mocked(jobScanSql).mockClear();
    vi.mocked(countJobScan).mockClear();
    const page = await listJobs(database.db, listJobsQuerySchema.parse(query));
    const ways = vi.mocked(jobScanSql).mock.calls.map(([way]) => way);
    return { page, ways, counts: vi.mocked(countJobScan).mock.calls.length };
  };

  // The estimate takes the filters as independent: 10% of the jobs say "zebra", 90% are open,
  // so 9% would be both and the window hold the page; none is. The count finds none in the
  // index, without reading a job, and the window is not read.
  it("a word and a filter that never meet: counted in the index, read exactly, never the window", async () => {
    const query = { q: "zebra", status: "open" };
    const { page, ways, counts } = await waysRead(query);
    expect(page.items).toEqual([]);
    expect(ways).toEqual(["exact"]);
    expect(counts).toBe(1);
    const scan = newestScan(listJobsQuerySchema.parse({ ...query, sort: "newest" }), []);
    expect(await countJobScan(database.db, scan, 500)).toBe(0);
    const counted = await statementScans(jobScanCountSql(scan, 500), true);
    expect(counted.map((node) => node["Node Type"])).toEqual(["Bitmap Heap Scan"]);
    expect(read(counted)).toBe(0);
    // The window, had it been read: at most its size through the status's index.
    expect(passed(await explain(query, "window"))).toBeLessThanOrEqual(LIMITS.scanWindow);
    // Exactly: the index intersects the word's jobs with the status's, and no job is read.
    const exact = await explain(query, "exact", true);
    expect(exact.map((node) => node["Node Type"])).toEqual(["Bitmap Heap Scan"]);
    expect(read(exact)).toBe(0);
  });

  // What npm run bench EXPLAINs: the statements the page ran (a rare word's page never runs
  // the window's), each as jobPageSql writes it for the way read.
  it("jobPageStatements: the statements a page reads its jobs with, in the order it ran them", async () => {
    const statements = async (query: Record<string, string>) =>
      (await jobPageStatements(database.db, listJobsQuerySchema.parse(query))).map(textOf);
    const pageSql = (query: Record<string, string>, way?: ScanWay) =>
      textOf(jobPageSql(listJobsQuerySchema.parse(query), way));
    const shapes: Record<string, string>[] = [
      { q: "zebra", status: "open" },
      { q: "zebra", status: "completed", sort: "newest", limit: "20" },
      { q: "giraffe", category: "data", sort: "budget_desc" },
      { q: "zebra or giraffe", status: "open", limit: "25" },
    ];
    const seen = new Set<string>();
    for (const query of shapes) {
      const { ways } = await waysRead(query);
      expect(ways.length).toBeGreaterThan(0);
      ways.forEach((way) => seen.add(way));
      expect(await statements(query)).toEqual(ways.map((way) => pageSql(query, way)));
    }
    expect([...seen].sort()).toEqual(["exact", "window"]);
    // Every filter served by an index beside createdAt: one statement, read by no scan's way.
    const indexed = { status: "open", category: "data" };
    expect((await waysRead(indexed)).ways).toEqual([]);
    expect(await statements(indexed)).toEqual([pageSql(indexed)]);
  });

  // "zebra zebra": the planner multiplies the word's frequency by itself (1% of the jobs, where
  // 10% match). Trusted, that low estimate would send the page to the exact way at once, every
  // match read; the window holds it.
  it("several words: an estimate not trusted, the window read all the same", async () => {
    const query = { q: "zebra zebra", status: "completed", sort: "newest", limit: "20" };
    const scan = newestScan(listJobsQuerySchema.parse(query), []);
    expect(scan.estimable).toBe(false);
    const estimate = await estimateJobScan(database.db, scan);
    expect(estimate).toMatchObject({ trusted: false });
    const { page, ways } = await waysRead(query);
    expect(page.items.length).toBe(20);
    expect(ways).toEqual(["window"]);
    const one = newestScan(listJobsQuerySchema.parse({ ...query, q: "zebra" }), []);
    expect(one.estimable).toBe(true);
  });

  // "zebra zebra zebra", no status: the planner cubes the word's 10% (22 of 22,000 jobs, where
  // 2,200 match), too few for the window to hold 21 within its rows: the exact way would read
  // all 2,200. Counted up to the 24 that would fill the window at their rate, they are there.
  it("several words estimated too few for the window: counted, and the window read", async () => {
    const query = { q: "zebra zebra zebra", sort: "newest", limit: "20" };
    const scan = newestScan(listJobsQuerySchema.parse(query), []);
    const estimate = await estimateJobScan(database.db, scan);
    expect(estimate).toMatchObject({ trusted: false, countable: true });
    if (estimate === "small") throw new Error("the table is larger than the window");
    expect((21 * estimate.sought) / estimate.matches).toBeGreaterThan(LIMITS.scanWindow);
    const { page, ways, counts } = await waysRead(query);
    expect(page.items.length).toBe(20);
    expect(ways).toEqual(["window"]);
    expect(counts).toBe(1);
  });

  it("a budget range is counted only with a status alone: one b-tree holds both", async () => {
    const scanOf = (query: Record<string, string>) =>
      newestScan(listJobsQuerySchema.parse({ ...query, sort: "newest" }), []);
    for (const query of [
      { q: "zebra", status: "open", minBudgetUsdc: "3" },
      { q: "zebra", maxBudgetUsdc: "4" },
      { status: "open", category: "data", minBudgetUsdc: "3" },
      { status: "open", poster: other, minBudgetUsdc: "3" },
      { minBudgetUsdc: "3", maxBudgetUsdc: "4" },
    ] as Record<string, string>[]) {
      const scan = scanOf(query);
      expect(scan.counted).toBeUndefined();
      expect(await estimateJobScan(database.db, scan)).toMatchObject({ countable: false });
    }
    const budget = scanOf({ status: "open", minBudgetUsdc: "3", maxBudgetUsdc: "4" });
    expect(budget.counted).toBe("budget");
    const ranged = await estimateJobScan(database.db, budget);
    expect(ranged).toMatchObject({ countable: true, cheapCount: true });
    if (ranged === "small") throw new Error("the table is larger than the window");
    // Read exactly, the range's entries are walked in the b-tree, not the status's.
    expect(ranged.exactRows).toBeLessThan(ranged.matches + ranged.sought / 250);
    const words = scanOf({ q: "zebra", status: "open" });
    expect(words.counted).toBe("words");
    const estimate = await estimateJobScan(database.db, words);
    expect(estimate).toMatchObject({ countable: true, cheapCount: true });
  });

  // Only completed jobs are budgeted 10 USDC (g % 10 = 9, so g % 50 is 9, 19, ...); the
  // planner puts 2% of the open ones there, enough for the window to hold a page of 5 within
  // 300 of its rows. It would read 20,000 for none (80 to 90 ms at a million jobs); the count
  // walks the status's range in the b-tree over both and finds none.
  it("a status and a budget range that never meet: counted in the b-tree, read exactly", async () => {
    const query = { status: "open", minBudgetUsdc: "10", maxBudgetUsdc: "10", limit: "5" };
    const { page, ways, counts } = await waysRead(query);
    expect(page.items).toEqual([]);
    expect(ways).toEqual(["exact"]);
    expect(counts).toBe(1);
    const scan = newestScan(listJobsQuerySchema.parse({ ...query, sort: "newest" }), []);
    const counted = await statementScans(jobScanCountSql(scan, 6), true);
    expect(JSON.stringify(counted)).toContain('"jobs_status_budgetAtomic_createdAt_id_idx"');
    expect(read(counted)).toBe(0);
    expect(read(await explain(query, "exact", true))).toBe(0);
    // Where they meet, the window holds the page once counted.
    const meet = await waysRead({ ...query, status: "completed", maxBudgetUsdc: "50" });
    expect(meet.page.items.length).toBe(5);
    expect(meet.ways).toEqual(["window"]);
    expect(meet.counts).toBe(1);
    // The count walks the b-tree in budget order and stops at what the page needs, whatever
    // the planner would choose for every match (a scan of the table, the range's whole bitmap).
    const meetScan = newestScan(
      listJobsQuerySchema.parse({ ...query, status: "completed", maxBudgetUsdc: "50" }),
      [],
    );
    for (const indexOnly of [false, true]) {
      const stopped = await statementScans(jobScanCountSql(meetScan, 6), indexOnly);
      expect(stopped.map((node) => node["Node Type"])).toEqual([
        expect.stringMatching(/^Index (Only )?Scan$/),
      ]);
      expect(read(stopped)).toBe(6);
    }
  });

  // Without a seek there is nothing to intersect the words' matches with in the index: the
  // exact way costs them alone (a word of 1,100 jobs among a million, by budget: it took the
  // window, 40 ms, for 20 of the 21 it needed, then the exact way's 5 ms).
  it("the exact way's cost: the seek's entries only when there is a seek", async () => {
    const estimated = async (query: Record<string, string>) => {
      const estimate = await estimateJobScan(database.db, scanOf(query));
      if (estimate === "small") throw new Error("the table is larger than the window");
      return estimate;
    };
    const scanOf = (query: Record<string, string>) =>
      newestScan(listJobsQuerySchema.parse({ ...query, sort: "newest" }), []);
    const alone = await estimated({ q: "giraffe" });
    expect(alone.exactRows).toBeCloseTo(alone.matches, 0);
    const withStatus = await estimated({ q: "giraffe", status: "open" });
    expect(withStatus.exactRows).toBe(withStatus.matches + withStatus.sought / 250);
    // Past the first page the seek holds the cursor's keyset alone, checked on the words' rows:
    // the exact way reads every match of the words, those before the cursor too.
    const first = await listJobs(
      database.db,
      listJobsQuerySchema.parse({ q: "giraffe", sort: "newest", limit: "3" }),
    );
    const keyset = [beforeKeySql(decodeCursor(first.nextCursor!)!)];
    const next = newestScan(listJobsQuerySchema.parse({ q: "giraffe", sort: "newest" }), keyset);
    expect(next.filtered).toBe(false);
    const paged = await estimateJobScan(database.db, next);
    if (paged === "small") throw new Error("the table is larger than the window");
    expect(paged.exactRows).toBeCloseTo((paged.matches * alone.sought) / paged.sought, 0);
  });

  it("the same for a budget page: counted, then exactly; the window reads no more than its size", async () => {
    const query = { q: "zebra", status: "open", sort: "budget_desc" };
    const { page, ways } = await waysRead(query);
    expect(page.items).toEqual([]);
    expect(ways).toEqual(["exact"]);
    expect(passed(await explain(query, "window"))).toBeLessThanOrEqual(LIMITS.scanWindow);
    expect(read(await explain(query, "exact", true))).toBe(0);
  });
});
