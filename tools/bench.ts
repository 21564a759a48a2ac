// npm run bench: the production server on PostgreSQL against its ceiling, and the issue's
// goals, each printed as a ratio with PASS or FAIL. The ceiling is a handler in the same
// server (/api/dev/echo, only with BENCHMARK_MODE=true) answering the very same bytes from
// memory: real/ceiling is the share of the framework's best case the real handler reaches,
// and since each pair is measured side by side, round by round (tools/bench-measure.ts), the
// ratio holds on a machine busy with other work, where the absolute figures do not.
//
// Reads, per size (BENCH_SIZES, default 1k, 100k and 1M jobs), on a seeded schema kept between
// runs (tools/bench-seed.ts): GET /api/v1/jobs?status=open&limit=50, GET /api/v1/jobs/:id,
// GET /api/auth/session signed in; at the largest size also the search shapes (q=, a budget
// range, sort=budget_desc), each with EXPLAIN (ANALYZE, BUFFERS) of its statement; and the
// mixed reads (tools/bench-mixed.ts): thousands of distinct requests, each against its own
// bytes from memory, so that the read cache rarely answers.
// Writes, in a throwaway schema: POST /api/v1/jobs signed in against an authenticated echo
// (POST /api/dev/echo-write: the same caller check, rate limit and body parsing); the
// lifecycle's steps with their database and chain time (tools/bench-lifecycle.ts); and
// BENCH_PAYMENTS posters paying at once, with one facilitator gas key and with two, beside the
// chain's own rate (tools/bench-payments.ts).
// At 1M against 1k jobs, the list once more with a server on each, side by side.
// Workers: the load against the app with N workers and with one, side by side
// (tools/bench-workers.ts; BENCH_WORKERS, default one per core).
// Memory: each server's RSS once its warm-up has settled it (settleMemory) and after its last
// measurement.
//
// Environment: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test),
// BENCH_SIZES ("1000,100000,1000000"), BENCH_RESEED=1 (seed the size schemas again),
// BENCH_DURATION seconds per round (5), BENCH_ROUNDS per side (2), BENCH_WARMUP seconds (2),
// BENCH_CONNECTIONS (10), BENCH_LIFECYCLES (5; 0 skips), BENCH_PAYMENTS (50; 0 skips),
// BENCH_READS=0 skips the reads' servers, BENCH_WRITES=0 the writes' server,
// BENCH_UNCACHED=1 runs the servers with the read cache off (READ_CACHE_SECONDS=0),
// BENCH_MIXED distinct requests in the mixed reads (4000; 0 skips),
// BENCH_CPU_PROF=dir writes the servers' CPU profiles there, NEXT_DIST_DIR (the build,
// default .next; rebuilt when older than the sources), BENCH_SKIP_BUILD=1.
// Quick look: BENCH_SIZES=1000 BENCH_DURATION=2 BENCH_ROUNDS=1.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { LOCAL_FACILITATOR_ENV } from "@/dev/local-chain";
import { resolveDbTarget } from "@/lib/db/target";
import { openDatabase } from "@/lib/db/client";
import { readRows } from "@/lib/db/row-reader";
import { Prisma } from "@/lib/generated/prisma/client";
import { jobPageStatements } from "@/lib/marketplace/jobs";
import { listJobsQuerySchema } from "@/lib/shared/schemas/jobs";
import { startTestChain } from "@/tests/helpers/chain";
import { measureLifecycles, STEPS } from "./bench-lifecycle";
import {
  type Goal,
  loadAutocannon,
  type Autocannon,
  formatRounds,
  formatSpread,
  percent,
  printGoals,
  printTable,
  ratioGoal,
  sideBySide,
  type Stats,
  times,
  warmUp,
  type Target,
} from "./bench-measure";
import { benchPayments } from "./bench-payments";
import { cpuAroundRuns, formatPerRequest } from "./bench-cpu";
import {
  mixedComposition,
  mixedRequests,
  mixedSplit,
  mixedTargets,
  prepareMixed,
} from "./bench-mixed";
import { BENCH_POSTER_KEY, scratchSchema, seededSchema } from "./bench-seed";
import { workersGoal } from "./bench-workers";
import { launchNextServer, type NextServer } from "./next-server";
import { mustRun, nextBin } from "./run";

const DATABASE_URL = process.env.BENCH_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test";
const SIZES = (process.env.BENCH_SIZES || "1000,100000,1000000")
  .split(",")
  .map((size) => {
    const n = Number(size.trim());
    if (!Number.isInteger(n) || n < 1 || n > 10_000_000)
      throw new Error(`bad BENCH_SIZES: ${size}`);
    return n;
  })
  .sort((a, b) => a - b);
const SETTINGS = {
  connections: positive("BENCH_CONNECTIONS", 10),
  warmup: positive("BENCH_WARMUP", 2, true),
  duration: positive("BENCH_DURATION", 5),
  rounds: positive("BENCH_ROUNDS", 2),
};
const LIFECYCLES = positive("BENCH_LIFECYCLES", 5, true);
const MIXED = process.env.BENCH_MIXED ? Number(process.env.BENCH_MIXED) : 4000;
if (!Number.isInteger(MIXED) || MIXED < 0 || MIXED > 10_000) {
  throw new Error("BENCH_MIXED must be a whole number of 0..10000");
}
const UNCACHED = process.env.BENCH_UNCACHED === "1";
/** Goals measured with the read cache off say so. */
const cacheNote = UNCACHED ? " (cache off)" : "";
const PAYMENTS = positive("BENCH_PAYMENTS", 50, true);
const DIST_DIR = process.env.NEXT_DIST_DIR || ".next";
const CPU_PROF = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : "";

function positive(name: string, fallback: number, zeroOk = false): number {
  const value = process.env[name] ? Number(process.env[name]) : fallback;
  if (!Number.isFinite(value) || value < (zeroOk ? 0 : 1) || value > 600) {
    throw new Error(`${name} must be a number of ${zeroOk ? "0" : "1"}..600`);
  }
  return value;
}

const fmt = (n: number) => n.toLocaleString("en-US");

// ---------------------------------------------------------------------------------------

const SOURCES = ["app", "lib", "components", "instrumentation.ts", "next.config.ts"];

function newestSourceMtime(): number {
  let newest = 0;
  const visit = (entry: string) => {
    if (!fs.existsSync(entry)) return;
    const stat = fs.statSync(entry);
    if (stat.isDirectory()) {
      for (const child of fs.readdirSync(entry)) visit(path.join(entry, child));
    } else if (/\.(tsx?|css|json|mjs)$/.test(entry)) {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  [...SOURCES, "package-lock.json"].forEach(visit);
  return newest;
}

async function ensureBuild() {
  const buildId = path.join(DIST_DIR, "BUILD_ID");
  if (process.env.BENCH_SKIP_BUILD === "1") {
    if (!fs.existsSync(buildId))
      throw new Error(`BENCH_SKIP_BUILD=1 but there is no build in ${DIST_DIR}`);
    return;
  }
  if (fs.existsSync(buildId) && fs.statSync(buildId).mtimeMs > newestSourceMtime()) return;
  console.log(`› next build (into ${DIST_DIR})`);
  await mustRun(nextBin, ["build"], {
    env: { ...process.env, NEXT_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/**
 * With `workers`, under its supervisor (`--workers`, as `npm start` runs it); `extraEnv` adds
 * to the server's environment (the two-key payment server).
 */
function startServer(
  databaseUrl: string,
  rpcUrl: string,
  { workers, extraEnv = {} }: { workers?: number; extraEnv?: Record<string, string> } = {},
): Promise<NextServer> {
  // A test server, not production (which refuses BENCHMARK_MODE): NODE_ENV=test keeps Next's
  // production runtime (it picks the development one only for "development") and the build.
  return launchNextServer(
    {
      NODE_ENV: "test",
      NEXT_DIST_DIR: DIST_DIR,
      DATABASE_URL: databaseUrl,
      SESSION_SECRET: randomBytes(32).toString("hex"),
      ...LOCAL_FACILITATOR_ENV,
      CHAIN_RPC_URL: rpcUrl,
      BENCHMARK_MODE: "true",
      // The writes and the payment burst sign in and write from many wallets on one address.
      RATE_LIMIT_WRITES_PER_MINUTE: "1000000",
      RATE_LIMIT_AUTH_PER_MINUTE: "100000",
      // The read load comes from one address too: out of the way (its cost is measured).
      RATE_LIMIT_READS_PER_MINUTE: "1000000",
      // What the reads cost without the read cache (every request reads the database).
      ...(UNCACHED ? { READ_CACHE_SECONDS: "0" } : {}),
      ...extraEnv,
    },
    {
      // Node refuses --cpu-prof in NODE_OPTIONS: it goes on the server's command line.
      nodeArgs: CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`] : [],
      serverArgs: workers ? ["--workers", String(workers)] : [],
    },
  );
}

/** The server process's resident memory, in MiB (Linux). */
function rssMiB(server: NextServer): number {
  const status = fs.readFileSync(`/proc/${server.pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** Warm-up rounds over every target at most, waiting for the server's RSS to settle. */
const SETTLE_ROUNDS = 6;
/** RSS is settled when a whole round over the targets moves it by less than this. */
const SETTLED = 0.05;

/**
 * The warm-up's end, for memory: the heap grows under load until the garbage collector's
 * rhythm settles, whatever the code, so "RSS after warm-up" is read once one more round
 * over all the targets (BENCH_WARMUP s each) moved it by less than 5%, or after
 * SETTLE_ROUNDS rounds. Growth from there to the end of the measurement is the goal's: a
 * leak keeps growing through both.
 */
async function settleMemory(
  autocannon: Autocannon,
  server: NextServer,
  targets: Target[],
): Promise<number> {
  let previous = rssMiB(server);
  for (let round = 1; round <= SETTLE_ROUNDS && SETTINGS.warmup > 0; round++) {
    await warmUp(autocannon, targets, SETTINGS);
    const now = rssMiB(server);
    if (Math.abs(now / previous - 1) < SETTLED) {
      console.log(`  RSS settled at ${now.toFixed(0)} MiB after ${round} warm-up round(s)`);
      return now;
    }
    previous = now;
  }
  console.log(
    `  RSS still moving after ${SETTLE_ROUNDS} warm-up rounds: ${previous.toFixed(0)} MiB`,
  );
  return previous;
}

/** Signs the benchmark's poster in (SIWE, as any program does); returns its cookie. */
async function signIn(server: NextServer): Promise<string> {
  const account = privateKeyToAccount(BENCH_POSTER_KEY);
  const nonce = (await (await fetch(`${server.url}/api/auth/nonce`)).json()).data.nonce;
  const message = createSiweMessage({
    domain: new URL(server.url).host,
    address: account.address,
    uri: server.url,
    version: "1",
    chainId: 31337,
    nonce,
  });
  const signature = await account.signMessage({ message });
  const response = await fetch(`${server.url}/api/auth/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message, signature }),
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (response.status !== 200 || !cookie) throw new Error(`sign-in failed: ${response.status}`);
  return cookie;
}

/** Stores the real answer's bytes as the ceiling's, and checks the ceiling answers them. */
async function prepareCeiling(server: NextServer, key: string, real: Target, status = 200) {
  const answer = await fetch(real.url, {
    method: real.method ?? "GET",
    headers: real.headers,
    body: real.body,
  });
  if (answer.status !== status) throw new Error(`${real.url} answered ${answer.status}`);
  const bytes = Buffer.from(await answer.arrayBuffer());
  const stored = await fetch(`${server.url}/api/dev/echo?key=${key}`, {
    method: "POST",
    // A write without a session still takes JSON only (lib/http.ts): the answer is JSON.
    headers: { "content-type": "application/json" },
    body: bytes,
  });
  if (stored.status !== 200) throw new Error(`storing the ceiling failed: ${await stored.text()}`);
  if (key !== "write") {
    const echoed = await fetch(`${server.url}/api/dev/echo?key=${key}`);
    if (Buffer.compare(Buffer.from(await echoed.arrayBuffer()), bytes) !== 0) {
      throw new Error("the ceiling does not answer the same bytes as the real handler");
    }
  }
  return bytes.byteLength;
}

interface Row {
  size: number;
  name: string;
  bytes: number;
  real: Stats;
  ceiling: Stats;
  /** Each round's ratio (bench-measure.ts roundRatios). */
  rounds: number[];
}

const ratio = (row: Row) => row.real.perSecond / row.ceiling.perSecond;

function printRows(rows: Row[]) {
  printTable(
    [
      "jobs",
      "endpoint",
      "bytes",
      "req/s",
      "p50/p99 ms",
      "ceiling req/s",
      "p50/p99 ms",
      "ratio",
      "rounds",
    ],
    rows.map((row) => [
      fmt(row.size),
      row.name,
      fmt(row.bytes),
      row.real.perSecond.toFixed(0),
      `${row.real.p50.toFixed(0)} / ${row.real.p99.toFixed(0)}`,
      row.ceiling.perSecond.toFixed(0),
      `${row.ceiling.p50.toFixed(0)} / ${row.ceiling.p99.toFixed(0)}`,
      percent(ratio(row)),
      formatSpread(row.rounds, percent),
    ]),
  );
}

// ---------------------------------------------------------------------------------------

const LIST = "/api/v1/jobs?status=open&limit=50";
/**
 * Rows measured against their floor as well (not a goal): the ceiling's bytes after one
 * statement answering as many (dev/bench-echo.ts). Uncached, a handler whose one statement
 * answers its whole text cannot go past its floor on this machine, whatever that costs.
 */
const FLOORED = new Set(["list", "job"]);
const floorName = (key: string) => `${key}'s floor: 1 statement of its size`;
const mixedName = (count: number) => `mixed reads (${fmt(count)} distinct)`;
const SEARCHES = [
  { key: "search", name: "q=topic123 (ranked)", query: "status=open&q=topic123&limit=50" },
  {
    key: "budget",
    name: "budget 100..120 USDC",
    query: "status=open&minBudgetUsdc=100&maxBudgetUsdc=120&limit=50",
  },
  { key: "sorted", name: "sort=budget_desc", query: "status=open&sort=budget_desc&limit=50" },
] as const;

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements that find a page of `query`'s jobs: those the
 * page runs (jobPageStatements; the window, then exactly, or exactly at once), each in turn.
 */
async function explain(url: string, query: string) {
  const target = resolveDbTarget({ DATABASE_URL: url });
  if (target.kind !== "postgres") throw new Error("the benchmark runs on PostgreSQL");
  const parsed = listJobsQuerySchema.parse(Object.fromEntries(new URLSearchParams(query)));
  const database = await openDatabase(target);
  try {
    const plan: string[] = [];
    for (const statement of await jobPageStatements(database.db, parsed)) {
      const rows = await readRows<{ "QUERY PLAN": string }>(
        database.db,
        Prisma.sql`EXPLAIN (ANALYZE, BUFFERS) ${statement}`,
      );
      if (plan.length > 0) plan.push("-- then:");
      plan.push(...rows.map((row) => row["QUERY PLAN"]));
    }
    const named = plan.join("\n").match(/(?<=using |on )"?jobs_\w+/gi) ?? [];
    const indexes = [...new Set(named.map((name) => name.replace('"', "")))];
    return { plan, usesIndex: plan.some((line) => /Index|Bitmap/.test(line)), indexes };
  } finally {
    await database.close();
  }
}

interface Memory {
  server: string;
  warm: number;
  end: number;
}

async function benchReads(
  autocannon: Autocannon,
  rpcUrl: string,
  rows: Row[],
  goals: Goal[],
  memory: Memory[],
) {
  const largest = SIZES.at(-1)!;
  for (const size of SIZES) {
    const seeded = await seededSchema(DATABASE_URL, size, process.env.BENCH_RESEED === "1");
    console.log(
      seeded.seededMs
        ? `\nseeded ${fmt(size)} jobs into ${seeded.schema} (${(seeded.seededMs / 1000).toFixed(0)} s)`
        : `\n${fmt(size)} jobs: reusing ${seeded.schema} (BENCH_RESEED=1 seeds it again)`,
    );
    const server = await startServer(seeded.url, rpcUrl);
    try {
      const cookie = await signIn(server);
      const { rows: picked } = await queryOnce(
        seeded.url,
        `SELECT "id" FROM "jobs" WHERE "status" = 'open' ORDER BY "createdAt" LIMIT 1 OFFSET $1`,
        [Math.floor((size * 0.7) / 2)],
      );
      const targets = [
        { key: "list", name: "GET /api/v1/jobs?status=open&limit=50", path: LIST },
        { key: "job", name: "GET /api/v1/jobs/:id", path: `/api/v1/jobs/${picked[0]!.id}` },
        { key: "session", name: "GET /api/auth/session", path: "/api/auth/session", cookie },
        ...(size === largest
          ? SEARCHES.map((search) => ({
              key: search.key,
              name: `GET /api/v1/jobs ${search.name}`,
              path: `/api/v1/jobs?${search.query}`,
            }))
          : []),
      ];
      // Every target warmed up first (its ceiling stored, both sides driven for BENCH_WARMUP),
      // then the memory is read, then each is measured.
      const pairs: { name: string; bytes: number; real: Target; ceiling: Target }[] = [];
      for (const target of targets) {
        const real: Target = {
          url: server.url + target.path,
          headers: "cookie" in target ? { cookie: target.cookie! } : {},
        };
        const bytes = await prepareCeiling(server, target.key, real);
        const ceiling = { url: `${server.url}/api/dev/echo?key=${target.key}` };
        await warmUp(autocannon, [real, ceiling], SETTINGS);
        pairs.push({ name: target.name, bytes, real, ceiling });
        if (FLOORED.has(target.key)) {
          const floor = { url: `${ceiling.url}&floor=1` };
          await warmUp(autocannon, [floor], SETTINGS);
          pairs.push({ name: floorName(target.key), bytes, real: floor, ceiling });
        }
      }
      if (MIXED > 0) {
        const requests = mixedRequests(size, MIXED);
        console.log(`  mixed reads: ${mixedComposition(requests)}`);
        const { paths, bytes } = await prepareMixed(server.url, requests);
        console.log(`  mixed reads one at a time, a request's statements and handler time:`);
        for (const line of await mixedSplit(server.url, requests, paths))
          console.log(`    ${line}`);
        const mixed = mixedTargets(server.url, paths);
        await warmUp(autocannon, [mixed.real, mixed.ceiling], SETTINGS);
        pairs.push({ name: mixedName(paths.length), bytes: bytes / paths.length, ...mixed });
      }
      const warm = await settleMemory(
        autocannon,
        server,
        pairs.flatMap((pair) => [pair.real, pair.ceiling]),
      );
      for (const { name, bytes, real, ceiling } of pairs) {
        const cpu = cpuAroundRuns(() => server.pid);
        const settings = { ...SETTINGS, warmup: 0 };
        const measured = await sideBySide(autocannon, real, ceiling, settings, cpu.around);
        const row = { size, name, bytes: Math.round(bytes), ...measured };
        rows.push(row);
        console.log(
          `  ${name}: ${row.real.perSecond.toFixed(0)} req/s vs ceiling ` +
            `${row.ceiling.perSecond.toFixed(0)} (${percent(ratio(row))}; rounds ` +
            `${formatRounds(row.rounds, percent)})` +
            `\n    CPU a request, real: ${formatPerRequest(cpu.tallies.real)}` +
            `\n    CPU a request, ceiling: ${formatPerRequest(cpu.tallies.ceiling)}`,
        );
      }
      memory.push({ server: `reads, ${fmt(size)} jobs`, warm, end: rssMiB(server) });
    } finally {
      await server.stop();
    }
    const sized = (name: string) => rows.find((row) => row.size === size && row.name === name)!;
    const list = sized("GET /api/v1/jobs?status=open&limit=50");
    const p99Goal = (name: string, row: Row) =>
      ratioGoal(name, row.real.p99 / row.ceiling.p99, { atMost: 2 }, times);
    goals.push(
      ratioGoal(`list, ${fmt(size)} jobs${cacheNote}: throughput`, ratio(list), { atLeast: 0.7 }),
    );
    goals.push(p99Goal(`list, ${fmt(size)} jobs${cacheNote}: p99 vs ceiling's`, list));
    goals.push(
      ratioGoal(
        `job, ${fmt(size)} jobs${cacheNote}: throughput`,
        ratio(sized("GET /api/v1/jobs/:id")),
        { atLeast: 0.8 },
      ),
    );
    if (MIXED > 0) {
      const mixed = rows.find((row) => row.size === size && row.name.startsWith("mixed reads"))!;
      goals.push(
        ratioGoal(`mixed reads, ${fmt(size)} jobs${cacheNote}: throughput`, ratio(mixed), {
          atLeast: 0.6,
        }),
      );
      goals.push(p99Goal(`mixed reads, ${fmt(size)} jobs${cacheNote}: p99 vs ceiling's`, mixed));
    }
    if (size === largest) {
      for (const search of SEARCHES) {
        const row = sized(`GET /api/v1/jobs ${search.name}`);
        goals.push(
          ratioGoal(`search ${search.name}, ${fmt(size)} jobs${cacheNote}`, ratio(row), {
            atLeast: 0.5,
          }),
        );
        const { plan, usesIndex, indexes } = await explain(seeded.url, search.query);
        console.log(`\nEXPLAIN (ANALYZE, BUFFERS) for ${search.name}:\n  ${plan.join("\n  ")}`);
        goals.push({
          goal: `search ${search.name}: EXPLAIN uses an index`,
          measured: indexes.join(", ") || (usesIndex ? "yes" : "seq scan"),
          pass: usesIndex,
        });
      }
    }
  }
  if (largest >= 1_000_000 && SIZES[0]! <= 1_000) {
    goals.push(await listAcrossSizes(autocannon, rpcUrl, SIZES[0]!, largest));
  }
}

/**
 * The list's throughput at the largest size against the smallest's, as its own measurement:
 * one server on each schema, both warmed up, then driven in alternating rounds like real and
 * ceiling, so that both figures come from the same minutes of this machine.
 */
async function listAcrossSizes(
  autocannon: Autocannon,
  rpcUrl: string,
  small: number,
  large: number,
): Promise<Goal> {
  const servers: NextServer[] = [];
  // Each kept as soon as it runs, so that a failed second start still stops the first.
  const start = async (size: number) => {
    const server = await startServer((await seededSchema(DATABASE_URL, size, false)).url, rpcUrl);
    servers.push(server);
    return server;
  };
  try {
    const smallServer = await start(small);
    const largeServer = await start(large);
    const measured = await sideBySide(
      autocannon,
      { url: largeServer.url + LIST },
      { url: smallServer.url + LIST },
      SETTINGS,
    );
    console.log(
      `\n  list, side by side: ${measured.real.perSecond.toFixed(0)} req/s at ${fmt(large)} jobs, ` +
        `${measured.ceiling.perSecond.toFixed(0)} req/s at ${fmt(small)} ` +
        `(p99 ${measured.real.p99.toFixed(0)} vs ${measured.ceiling.p99.toFixed(0)} ms; ` +
        `rounds ${formatRounds(measured.rounds, percent)})`,
    );
    return ratioGoal(
      `list at ${fmt(large)} vs at ${fmt(small)} jobs, side by side`,
      measured.real.perSecond / measured.ceiling.perSecond,
      { atLeast: 0.9 },
    );
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

async function queryOnce(url: string, sql: string, params: unknown[]) {
  const target = resolveDbTarget({ DATABASE_URL: url });
  if (target.kind !== "postgres") throw new Error("the benchmark runs on PostgreSQL");
  const client = new pg.Client({ connectionString: target.connectionString });
  await client.connect();
  try {
    return await client.query<{ id: string }>(sql, params);
  } finally {
    await client.end();
  }
}

async function benchWrites(
  autocannon: Autocannon,
  rpcUrl: string,
  rows: Row[],
  goals: Goal[],
  memory: Memory[],
) {
  const scratch = await scratchSchema(DATABASE_URL, `bench_w_${randomBytes(4).toString("hex")}`);
  const server = await startServer(scratch.url, rpcUrl);
  try {
    const cookie = await signIn(server);
    const headers = { cookie, "content-type": "application/json" };
    const body = JSON.stringify({
      title: "A benchmark write",
      description: "Posted by npm run bench.",
      category: "data",
      budgetUsdc: 12.5,
      timelineDays: 3,
      requirements: ["Cite every source"],
    });
    const real: Target = { url: `${server.url}/api/v1/jobs`, method: "POST", body, headers };
    const bytes = await prepareCeiling(server, "write", real, 201);
    const ceiling: Target = { ...real, url: `${server.url}/api/dev/echo-write` };
    await warmUp(autocannon, [real, ceiling], SETTINGS);
    const warm = await settleMemory(autocannon, server, [real, ceiling]);
    const measured = await sideBySide(autocannon, real, ceiling, { ...SETTINGS, warmup: 0 });
    const row = { size: 0, name: "POST /api/v1/jobs (session)", bytes, ...measured };
    rows.push(row);
    goals.push(
      ratioGoal("authenticated write vs authenticated echo", ratio(row), { atLeast: 0.6 }),
    );

    if (LIFECYCLES > 0) {
      console.log(`\n› ${LIFECYCLES} lifecycles, one step at a time (medians, ms)`);
      const steps = await measureLifecycles(server.url, rpcUrl, LIFECYCLES);
      const waited = (step: (typeof STEPS)[number]) => steps[step].db + steps[step].chain;
      printTable(
        ["step", "server ms", "db ms (queries)", "chain ms (calls)", "server / (db + chain)"],
        STEPS.map((step) => [
          step,
          steps[step].total.toFixed(1),
          `${steps[step].db.toFixed(1)} (${steps[step].dbCalls})`,
          `${steps[step].chain.toFixed(1)} (${steps[step].chainCalls})`,
          times(steps[step].total / waited(step)),
        ]),
        1,
      );
      const total = STEPS.reduce((sum, step) => sum + steps[step].total, 0);
      const waits = STEPS.reduce((sum, step) => sum + waited(step), 0);
      goals.push(
        ratioGoal(
          "lifecycle: server time vs its db + chain time",
          total / waits,
          { atMost: 1.5 },
          times,
        ),
      );
    }
    if (PAYMENTS > 0) {
      console.log(
        `\n› ${PAYMENTS} posters paying ${PAYMENTS} different jobs at once, one gas key then two`,
      );
      goals.push(
        ...(await benchPayments({
          serverUrl: server.url,
          serverPid: server.pid,
          rpcUrl,
          count: PAYMENTS,
          startServer: (env) => startServer(scratch.url, rpcUrl, { extraEnv: env }),
        })),
      );
    }
    memory.push({ server: "writes", warm, end: rssMiB(server) });
  } finally {
    await server.stop();
    await scratch.drop();
  }
}

async function main() {
  const autocannon = await loadAutocannon();
  await ensureBuild();
  const chain = await startTestChain();
  const setting = async (name: string) => {
    const { rows } = await queryOnce(DATABASE_URL, `SHOW ${name}`, []);
    return (rows[0] as unknown as Record<string, string>)[name];
  };
  // shared_buffers: at a million jobs, what PostgreSQL's buffers do not hold is read from the
  // system's cache, several times slower a row (docs/configuration.md#postgresql).
  console.log(
    `Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), ` +
      `PostgreSQL ${await setting("server_version")}, ` +
      `shared_buffers ${await setting("shared_buffers")}, ` +
      `load ${os.loadavg()[0]!.toFixed(1)}; ${SETTINGS.connections} connections, ` +
      `${SETTINGS.warmup} s warm-up, then ${SETTINGS.rounds} × ${SETTINGS.duration} s per side, ` +
      `interleaved; loopback`,
  );
  const rows: Row[] = [];
  const goals: Goal[] = [];
  const memory: Memory[] = [];
  try {
    if (process.env.BENCH_READS !== "0") {
      await benchReads(autocannon, chain.rpcUrl, rows, goals, memory);
      printRows(rows);
      // The machine-level row: N workers against one (BENCH_WORKERS, default one per core).
      const smallest = await seededSchema(DATABASE_URL, SIZES[0]!, false);
      const start = (workers: number) => startServer(smallest.url, chain.rpcUrl, { workers });
      const bench = { autocannon, settings: SETTINGS, start };
      // On the mixed reads (their first pages: a later page's cursor is read from its first),
      // as the issue asks, so that the database's work is shared out, not one cached answer.
      const mixed = mixedRequests(SIZES[0]!, MIXED).filter((request) => request.after === 0);
      const load = mixed.length ? mixed.map(({ path }) => ({ path })) : [{ path: LIST }];
      const label = mixed.length ? `mixed reads, ${fmt(mixed.length)} distinct` : undefined;
      goals.push(
        await workersGoal(bench, load, label).catch((error: unknown) => {
          console.error(`\nworkers: ${error instanceof Error ? error.message : String(error)}`);
          return { goal: "N workers vs 1 ran", measured: "error", pass: false };
        }),
      );
    }
    if (process.env.BENCH_WRITES !== "0") {
      // A failure here (a lifecycle step refused, the chain gone) is a failed goal, not a lost run.
      await benchWrites(autocannon, chain.rpcUrl, rows, goals, memory).catch((error: unknown) => {
        console.error(`\nwrites: ${error instanceof Error ? error.message : String(error)}`);
        goals.push({ goal: "writes, lifecycle and payments ran", measured: "error", pass: false });
      });
    }
  } finally {
    await chain.stop();
  }
  printRows(rows);
  printTable(
    ["server", "RSS after warm-up MiB", "RSS at the end MiB", "growth"],
    memory.map((m) => [m.server, m.warm.toFixed(0), m.end.toFixed(0), percent(m.end / m.warm - 1)]),
    1,
  );
  for (const m of memory) {
    goals.push(ratioGoal(`memory, ${m.server}: RSS growth`, m.end / m.warm - 1, { atMost: 0.2 }));
  }
  printGoals(goals);
  console.log(
    `(load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(", ")})`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
