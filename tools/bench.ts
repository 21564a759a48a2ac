// npm run bench: read throughput of the production server on PostgreSQL, measured against a
// ceiling in the same run. For each size (1k and 100k jobs by default) it seeds the jobs
// with one bulk INSERT ... SELECT generate_series into a fresh schema, then drives with
// autocannon, one after the other:
//   GET /api/v1/jobs?status=open&limit=50,   GET /api/v1/jobs/:id   and
//   GET /api/auth/session with a session cookie (the per-request session lookup: unseal the
//   cookie, one primary-key read of the sessions table)
// and, for each, /api/dev/echo (a handler in the same server, present only with
// BENCHMARK_MODE=true) serving the very same bytes from memory. The ratio real/ceiling is the
// share of the framework's best case the real handler reaches. Loopback only; the schema is
// dropped afterwards.
//
// Then payments: BENCH_PAYMENTS posters (default 50; 0 skips) pay as many different jobs at
// once through @x402/fetch; payments per second beside the chain's own rate of mined
// transfers from one key in the same run (tools/bench-payments.ts).
//
// Environment: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test),
// BENCH_SIZES (default "1000,100000"), BENCH_DURATION seconds per measurement (10),
// BENCH_WARMUP seconds before each (2), BENCH_CONNECTIONS (10), NEXT_DIST_DIR (the build to
// run, default .next; rebuilt when missing or older than the sources), BENCH_SKIP_BUILD=1.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { migrateTarget } from "@/lib/db/setup";
import { resolveDbTarget } from "@/lib/db/target";
import { quoteIdent } from "@/lib/db/sql";
import { LOCAL_FACILITATOR_ENV } from "@/dev/local-chain";
import { startTestChain } from "@/tests/helpers/chain";
import { measureChainTransferRate, measurePaymentBurst } from "./bench-payments";
import { launchNextServer, type NextServer } from "./next-server";
import { mustRun, nextBin } from "./run";

const DATABASE_URL = process.env.BENCH_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test";
const SIZES = (process.env.BENCH_SIZES || "1000,100000").split(",").map((size) => {
  const n = Number(size.trim());
  if (!Number.isInteger(n) || n < 1 || n > 10_000_000) throw new Error(`bad BENCH_SIZES: ${size}`);
  return n;
});
const DURATION = positive("BENCH_DURATION", 10);
const WARMUP = positive("BENCH_WARMUP", 2, true);
const CONNECTIONS = positive("BENCH_CONNECTIONS", 10);
const DIST_DIR = process.env.NEXT_DIST_DIR || ".next";
const PAYMENTS = positive("BENCH_PAYMENTS", 50, true);

function positive(name: string, fallback: number, zeroOk = false): number {
  const value = process.env[name] ? Number(process.env[name]) : fallback;
  if (!Number.isFinite(value) || value < (zeroOk ? 0 : 1) || value > 600) {
    throw new Error(`${name} must be a number of ${zeroOk ? "0" : "1"}..600`);
  }
  return value;
}

// autocannon ships no types; this is the part of its API used here.
interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  throughput: Histogram;
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  pipelining?: number;
  headers?: Record<string, string>;
}) => Promise<AutocannonResult>;

async function loadAutocannon(): Promise<Autocannon> {
  const name: string = "autocannon";
  const loaded = (await import(name)) as { default?: Autocannon } & Autocannon;
  return loaded.default ?? loaded;
}

// ---------------------------------------------------------------------------------------

const POSTER_KEY = `0x${"b".repeat(64)}` as const;
const POSTER = privateKeyToAccount(POSTER_KEY).address;

/** Jobs `from`..`to` in one statement: 70% open, the rest spread over the other states. */
async function seedJobs(client: pg.Client, from: number, to: number) {
  await client.query(`INSERT INTO "wallets" ("address") VALUES ($1) ON CONFLICT DO NOTHING`, [
    POSTER,
  ]);
  await client.query(
    `INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic", "timelineDays",
       "requirements", "handle", "status", "posterAddress", "createdAt", "updatedAt")
     SELECT 'job_' || substr(md5(g::text), 1, 16),
            'Benchmark job #' || g,
            'A seeded job for the benchmark. ' || repeat('Summarise, compare and cite. ', 8),
            (enum_range(NULL::"Category"))[1 + g % 23],
            (1 + g % 500)::bigint * 1000000 + 250000,
            1 + g % 30,
            ARRAY['Cite every source', 'Deliver as Markdown'],
            '@bench',
            (CASE WHEN g % 10 < 7 THEN 'open' WHEN g % 10 = 7 THEN 'in_progress'
                  WHEN g % 10 = 8 THEN 'delivered' ELSE 'completed' END)::"JobStatus",
            $1,
            TIMESTAMP '2026-01-01' + make_interval(secs => g),
            TIMESTAMP '2026-01-01' + make_interval(secs => g)
     FROM generate_series($2::int, $3::int) AS g`,
    [POSTER, from, to],
  );
  await client.query(`ANALYZE "jobs"`);
}

// ---------------------------------------------------------------------------------------

const SOURCES = [
  "app",
  "lib",
  "components",
  "instrumentation.ts",
  "next.config.ts",
  "package-lock.json",
];

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
  SOURCES.forEach(visit);
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

function startServer(databaseUrl: string, rpcUrl: string): Promise<NextServer> {
  // A test server, not production (which refuses BENCHMARK_MODE): NODE_ENV=test keeps Next's
  // production runtime (it picks the development one only for "development") and the build.
  return launchNextServer({
    NODE_ENV: "test",
    NEXT_DIST_DIR: DIST_DIR,
    DATABASE_URL: databaseUrl,
    SESSION_SECRET: randomBytes(32).toString("hex"),
    ...LOCAL_FACILITATOR_ENV,
    CHAIN_RPC_URL: rpcUrl,
    BENCHMARK_MODE: "true",
    // The payment burst signs in and writes from many wallets on one address.
    RATE_LIMIT_WRITES_PER_MINUTE: "100000",
    RATE_LIMIT_AUTH_PER_MINUTE: "100000",
  });
}

// ---------------------------------------------------------------------------------------

interface Measurement {
  size: number;
  name: string;
  bytes: number;
  real: AutocannonResult;
  ceiling: AutocannonResult;
}

/** Signs the benchmark's poster in (SIWE, as any program does); returns its cookie. */
async function signIn(server: NextServer): Promise<string> {
  const account = privateKeyToAccount(POSTER_KEY);
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

/** Fetches the real response, hands its bytes to the ceiling and checks they come back equal. */
async function prepareCeiling(
  server: NextServer,
  key: "list" | "job" | "session",
  realPath: string,
  headers: Record<string, string> = {},
) {
  const real = await fetch(server.url + realPath, { headers });
  if (real.status !== 200) throw new Error(`${realPath} answered ${real.status}`);
  const bytes = new Uint8Array(await real.arrayBuffer());
  const stored = await fetch(`${server.url}/api/dev/echo?key=${key}`, {
    method: "POST",
    body: bytes,
  });
  if (stored.status !== 200) throw new Error(`storing the ceiling failed: ${await stored.text()}`);
  const echoed = new Uint8Array(
    await (await fetch(`${server.url}/api/dev/echo?key=${key}`)).arrayBuffer(),
  );
  if (Buffer.compare(Buffer.from(echoed), Buffer.from(bytes)) !== 0) {
    throw new Error("the ceiling does not answer the same bytes as the real handler");
  }
  return bytes.byteLength;
}

async function drive(
  autocannon: Autocannon,
  url: string,
  headers: Record<string, string> = {},
): Promise<AutocannonResult> {
  if (WARMUP > 0) await autocannon({ url, connections: CONNECTIONS, duration: WARMUP, headers });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(
      `${url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`,
    );
  }
  return result;
}

function printTable(measurements: Measurement[]) {
  const rows = [
    [
      "jobs",
      "endpoint",
      "bytes",
      "real req/s",
      "p50 ms",
      "p99 ms",
      "ceiling req/s",
      "p50 ms",
      "p99 ms",
      "real/ceiling",
    ],
  ];
  for (const m of measurements) {
    rows.push([
      m.size.toLocaleString("en-US"),
      m.name,
      m.bytes.toLocaleString("en-US"),
      m.real.requests.average.toFixed(0),
      String(m.real.latency.p50),
      String(m.real.latency.p99),
      m.ceiling.requests.average.toFixed(0),
      String(m.ceiling.latency.p50),
      String(m.ceiling.latency.p99),
      `${((100 * m.real.requests.average) / m.ceiling.requests.average).toFixed(0)}%`,
    ]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join("  ");
  console.log(`\n${line(rows[0]!)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const row of rows.slice(1)) console.log(line(row));
}

async function main() {
  const autocannon = await loadAutocannon();
  await ensureBuild();

  const schema = `bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  let server: NextServer | undefined;
  const chain = await startTestChain();
  const cleanup = async () => {
    await server?.stop();
    await chain.stop();
    await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await admin.end();
  };
  const interrupted = () => {
    console.error("\ninterrupted; cleaning up");
    cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);

  try {
    const { rows } = await admin.query<{ server_version: string }>("SHOW server_version");
    await admin.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
    const url = new URL(DATABASE_URL);
    url.searchParams.set("schema", schema);
    await migrateTarget(resolveDbTarget({ DATABASE_URL: url.toString() }));
    await admin.query(`SET search_path TO ${quoteIdent(schema)}`);

    console.log(
      `Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), PostgreSQL ${rows[0]?.server_version}; ` +
        `${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per measurement, loopback`,
    );
    server = await startServer(url.toString(), chain.rpcUrl);
    const cookie = await signIn(server);

    const measurements: Measurement[] = [];
    let seeded = 0;
    for (const size of [...SIZES].sort((a, b) => a - b)) {
      const started = Date.now();
      await seedJobs(admin, seeded + 1, size);
      seeded = size;
      console.log(`seeded ${size.toLocaleString("en-US")} jobs (${Date.now() - started} ms)`);

      const { rows: picked } = await admin.query<{ id: string }>(
        `SELECT "id" FROM "jobs" WHERE "status" = 'open' ORDER BY "createdAt" LIMIT 1 OFFSET $1`,
        [Math.floor((size * 0.7) / 2)],
      );
      const targets: {
        key: "list" | "job" | "session";
        name: string;
        path: string;
        headers?: Record<string, string>;
      }[] = [
        {
          key: "list",
          name: "GET /api/v1/jobs?status=open&limit=50",
          path: "/api/v1/jobs?status=open&limit=50",
        },
        {
          key: "job",
          name: "GET /api/v1/jobs/:id",
          path: `/api/v1/jobs/${picked[0]!.id}`,
        },
        {
          key: "session",
          name: "GET /api/auth/session (signed in)",
          path: "/api/auth/session",
          headers: { cookie },
        },
      ];
      for (const target of targets) {
        const headers = target.headers ?? {};
        const bytes = await prepareCeiling(server, target.key, target.path, headers);
        const real = await drive(autocannon, server.url + target.path, headers);
        const ceiling = await drive(autocannon, `${server.url}/api/dev/echo?key=${target.key}`);
        measurements.push({ size, name: target.name, bytes, real, ceiling });
        console.log(
          `  ${target.name}: ${real.requests.average.toFixed(0)} req/s vs ceiling ${ceiling.requests.average.toFixed(0)} req/s`,
        );
      }
    }
    printTable(measurements);

    if (PAYMENTS > 0) {
      console.log(`\n› ${PAYMENTS} posters paying ${PAYMENTS} different jobs at once`);
      const burst = await measurePaymentBurst(server.url, chain.rpcUrl, PAYMENTS);
      const rate = await measureChainTransferRate(chain.rpcUrl, PAYMENTS);
      console.log(
        `payments: ${burst.settled}/${burst.payments} settled in ${burst.seconds.toFixed(1)} s = ` +
          `${burst.perSecond.toFixed(1)} payments/s; the chain alone: ${rate.transfers} transfers ` +
          `from one key in ${rate.seconds.toFixed(1)} s = ${rate.perSecond.toFixed(1)} transfers/s ` +
          `(${((100 * burst.perSecond) / rate.perSecond).toFixed(0)}%)`,
      );
    }
  } finally {
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
