// npm run chaos: the product under faults, end to end (issue 28). It starts its own private
// deployment (tools/chaos/stack.ts: PostgreSQL behind a partitionable proxy, the local chain,
// the facilitator service, Redis, two app servers), drives it with simulated posters and
// agents doing the whole lifecycle with payments (tools/chaos/load.ts) and two webhook
// receivers, and takes dependencies away on a schedule (tools/chaos/faults.ts). Every request
// is recorded and judged (tools/chaos/classify.ts); at the end the invariants are read from
// the database, the chain and the receivers (tools/chaos/checks.ts). Exit code 1 on any
// failure or broken invariant.
//
// `--soak --minutes N`: the same load with no faults, for N minutes: each process's memory
// sampled every minute, p99 per endpoint per 5 minutes, database size and rows at start and end.
// Options: tools/chaos/options.ts. docs/testing.md#the-chaos-run says how to read the output.
import os from "node:os";
import { cleanUp, installSignalHandlers } from "./cleanup";
import { classify, clientErrorGroups, failureGroups, faultTable } from "./classify";
import { type Invariant, runChecks } from "./checks";
import { type FaultWindow, hasReadyEndpoint, runFault, schedule } from "./faults";
import { Load } from "./load";
import { seededRandom } from "../seeded-random";
import { type ChaosOptions, parseOptions } from "./options";
import { Recorder } from "./recorder";
import { Report } from "./report";
import { databaseStats, type DbStats, type MemorySample, p99Buckets, sampleMemory } from "./soak";
import { startStack, type Stack } from "./stack";
import { makeFlaky, startReceivers } from "./webhooks";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const t0 = Date.now();
const log = (line: string) =>
  console.log(`[${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${line}`);

async function run(options: ChaosOptions): Promise<boolean> {
  const stack = await startStack(log);
  const recorder = new Recorder(stack.apps);
  const ready = await hasReadyEndpoint(stack.apps[0]!.url);
  log(
    ready
      ? "the servers have GET /api/ready: recovery is measured with it"
      : "no GET /api/ready on these servers: recovery is measured with requests that need the dependency",
  );
  const load = new Load({
    recorder,
    appUrl: stack.apps[0]!.url,
    rpcUrl: stack.rpcUrl,
    clients: options.clients,
    seed: options.seed,
  });
  const subscriber = await load.actor("subscriber");
  const subscriptions = await startReceivers(subscriber);
  const stopFlaky = makeFlaky(subscriptions[1]!.receiver);

  const durationMs = (options.soak ? options.minutes * 60 : options.durationSeconds) * 1000;
  const dbStart = options.soak ? await databaseStats(stack.directDatabaseUrl) : undefined;
  const memory: MemorySample[] = [];
  const sampler = options.soak
    ? setInterval(
        () => memory.push({ at: recorder.now(), rss: sampleMemory(stack) }),
        options.sampleSeconds * 1000,
      )
    : undefined;
  if (options.soak) memory.push({ at: recorder.now(), rss: sampleMemory(stack) });

  const loadStart = recorder.now();
  log(
    `load: ${options.clients} poster+agent pairs for ${durationMs / 1000} s` +
      (options.soak ? " (soak: no faults)" : `; faults: ${options.faults.join(", ")}`),
  );
  await load.start();
  const windows: FaultWindow[] = [];
  const progress = setInterval(() => {
    const s = load.stats.lifecycles;
    log(
      `load: ${recorder.records.length} requests, lifecycles ${s.completed} completed, ${s.abandoned} abandoned`,
    );
  }, 30_000);
  try {
    for (const { name, at } of schedule(options.faults, durationMs, seededRandom(options.seed))) {
      const wait = loadStart + at - recorder.now();
      if (wait > 0) await sleep(wait);
      windows.push(
        await runFault(stack, name, options.downSeconds * 1000, () => recorder.now(), ready, log),
      );
    }
    const left = loadStart + durationMs - recorder.now();
    if (left > 0) await sleep(left);
  } finally {
    clearInterval(progress);
    if (sampler) clearInterval(sampler);
  }
  if (options.soak) memory.push({ at: recorder.now(), rss: sampleMemory(stack) });
  const loadEnd = recorder.now();
  log("load: stopping (lifecycles under way finish first)");
  const stopping = setInterval(() => {
    const stuck = load.stuck(10_000);
    if (stuck.length > 0) log(`load: still finishing: ${stuck.join("; ")}`);
  }, 30_000);
  await load.stop();
  clearInterval(stopping);
  stopFlaky();

  const invariants = await runChecks({
    databaseUrl: stack.directDatabaseUrl,
    rpcUrl: stack.rpcUrl,
    records: recorder.records,
    payers: load.stats.payers,
    subscriptions,
    logs: stack.logs,
    log,
  });
  const dbEnd = options.soak ? await databaseStats(stack.directDatabaseUrl) : undefined;

  const report = new Report();
  const failures = reportRequests(report, recorder, windows, options);
  reportLoad(report, load, loadEnd - loadStart);
  if (options.soak) {
    soakReport(
      report,
      stack,
      recorder,
      memory,
      options,
      loadStart,
      loadEnd,
      dbStart!,
      dbEnd!,
      load,
    );
  }
  reportInvariants(report, invariants);
  const passed = failures === 0 && invariants.every((i) => i.pass);
  report.text(
    passed
      ? "\nPASS: no failed request, every invariant holds."
      : `\nFAIL: ${failures} failed request(s), ${invariants.filter((i) => !i.pass).length} broken invariant(s).`,
  );
  if (options.out) {
    report.write(options.out, options.soak ? `Soak run (${options.minutes} min)` : "Chaos run", [
      `\`npm run chaos -- ${process.argv.slice(2).join(" ")}\`, ${new Date().toISOString().slice(0, 10)}; ` +
        `Node ${process.version}, ${os.cpus().length} CPUs, seed ${options.seed}, ` +
        `${options.clients} clients${options.soak ? "" : `, each fault down ${options.downSeconds} s`}.`,
    ]);
    log(`tables written to ${options.out}`);
  }
  return passed;
}

function reportRequests(
  report: Report,
  recorder: Recorder,
  windows: FaultWindow[],
  options: ChaosOptions,
): number {
  const now = recorder.now();
  const classified = recorder.records.map((r) => classify(r, windows, now));
  report.heading(options.soak ? "Requests" : "Faults");
  report.table(
    [
      "fault",
      "requests",
      "ok",
      "4xx",
      "expected 503/down",
      "unexpected",
      "recovery s",
      "first write s",
    ],
    faultTable(classified, windows).map((row) => [
      row.fault,
      String(row.requests),
      String(row.ok),
      String(row.clientErrors),
      String(row.expected),
      String(row.failures),
      row.recovery,
      row.firstWrite,
    ]),
  );
  report.text(
    "ok: 2xx (and the 402 challenge a payer asks for); " +
      "recovery s: from the dependency's return until every app server answered the probe; " +
      "first write s: until the first 2xx write started after its return. " +
      "A request counts under a fault when it overlaps the fault's window (down, plus 5 s).",
  );
  const groups = failureGroups(classified);
  if (groups.length > 0) {
    report.heading("Failed requests (product failures)");
    report.table(
      ["fault", "endpoint", "what was seen", "count", "first at s"],
      groups.map((g) => [g.fault, g.endpoint, g.why, String(g.count), (g.first / 1000).toFixed(1)]),
      3,
    );
  }
  const refusals = clientErrorGroups(classified);
  if (refusals.length > 0) {
    report.heading("4xx answers (not failures; a retried write's conflict shows here)");
    report.table(
      ["endpoint → status code", "count"],
      refusals.map(([key, count]) => [key, String(count)]),
    );
  }
  return classified.filter((c) => c.verdict === "failure").length;
}

function reportLoad(report: Report, load: Load, ms: number) {
  const s = load.stats;
  report.heading("Load");
  report.text(
    `${s.lifecycles.started} lifecycles started in ${(ms / 1000).toFixed(0)} s: ` +
      `${s.lifecycles.completed} completed (${s.byMode.now} paid now, ${s.byMode.escrow} protected), ` +
      `${s.lifecycles.abandoned} abandoned.`,
  );
  for (const [reason, count] of s.abandonReasons) report.text(`  abandoned ${count}×: ${reason}`);
  report.text(
    `The local chain's clock ran at most ${s.chainAheadSeconds.toFixed(0)} s ahead of the wall clock; ` +
      `payments waited ${s.clockWaitSeconds.toFixed(0)} s in all for it (beyond 90 s ahead: tools/chaos/load.ts).`,
  );
}

function reportInvariants(report: Report, invariants: Invariant[]) {
  report.heading("Invariants");
  report.table(
    ["invariant", "measured", "result"],
    invariants.map((i) => [i.name, i.measured, i.pass ? "PASS" : "FAIL"]),
    2,
  );
  for (const i of invariants.filter((i) => !i.pass && i.details.length > 0)) {
    report.text(`${i.name}:`);
    for (const detail of i.details) report.text(`  ${detail}`);
  }
}

function soakReport(
  report: Report,
  stack: Stack,
  recorder: Recorder,
  memory: MemorySample[],
  options: ChaosOptions,
  loadStart: number,
  loadEnd: number,
  dbStart: DbStats,
  dbEnd: DbStats,
  load: Load,
) {
  const names = Object.keys(memory[0]?.rss ?? {});
  report.heading(`Memory (RSS MiB, every ${options.sampleSeconds} s)`);
  report.table(
    ["minute", ...names],
    memory.map((m) => [
      Math.max(0, (m.at - loadStart) / 60_000).toFixed(1),
      ...names.map((n) => (m.rss[n] === undefined ? "-" : m.rss[n]!.toFixed(0))),
    ]),
  );
  // Warm-up: the first quarter of the run (at least one sample); growth is judged after it.
  const warmIndex = Math.max(
    1,
    memory.findIndex((m) => m.at - loadStart >= (options.minutes * 60_000) / 4),
  );
  const warm = memory[Math.min(warmIndex, memory.length - 1)]!;
  const last = memory.at(-1)!;
  report.text(
    "growth after warm-up (first quarter): " +
      names
        .map((n) => {
          const a = warm.rss[n];
          const b = last.rss[n];
          return `${n} ${a && b ? `${(((b - a) / a) * 100).toFixed(0)}%` : "-"}`;
        })
        .join(", "),
  );
  const bucketMs = options.bucketMinutes * 60_000;
  const { buckets, p99s } = p99Buckets(recorder.records, bucketMs, loadStart, loadEnd);
  report.heading(`p99 latency of 2xx answers, ms (n), per ${options.bucketMinutes} min`);
  report.table(
    [
      "endpoint",
      ...Array.from(
        { length: buckets },
        (_, i) => `${i * options.bucketMinutes}-${(i + 1) * options.bucketMinutes} min`,
      ),
    ],
    [...p99s.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([endpoint, cells]) => [
        endpoint,
        ...cells.map((c) => (c.n === 0 ? "-" : `${c.p99.toFixed(0)} (${c.n})`)),
      ]),
  );
  const completed = load.stats.lifecycles.completed;
  report.heading("Database growth");
  report.text(
    `pg_database_size: ${(dbStart.sizeBytes / 1048576).toFixed(1)} MiB → ${(dbEnd.sizeBytes / 1048576).toFixed(1)} MiB ` +
      `for ${completed} completed lifecycles (${load.stats.lifecycles.started} started)`,
  );
  const tables = [...new Set([...Object.keys(dbStart.rows), ...Object.keys(dbEnd.rows)])];
  report.table(
    ["table", "rows at start", "rows at end", "added", "per completed lifecycle"],
    tables.map((t) => {
      const added = (dbEnd.rows[t] ?? 0) - (dbStart.rows[t] ?? 0);
      return [
        t,
        String(dbStart.rows[t] ?? 0),
        String(dbEnd.rows[t] ?? 0),
        String(added),
        completed > 0 ? (added / completed).toFixed(2) : "-",
      ];
    }),
  );
  void stack;
}

async function main() {
  installSignalHandlers();
  const options = parseOptions(process.argv.slice(2), process.env);
  let passed = false;
  try {
    passed = await run(options);
  } finally {
    log("stopping every process the run started");
    await cleanUp();
  }
  process.exit(passed ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  void cleanUp().finally(() => process.exit(2));
});
