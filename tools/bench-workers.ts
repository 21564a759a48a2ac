// The machine-level row of `npm run bench` (issue 27, "Both cores"): the same load against
// the app under its supervisor with N workers (one per core, as `npm start` runs it on
// PostgreSQL) and with one, both servers up at once and driven round by round
// (tools/bench-measure.ts), so that both figures come from the same minutes of this machine.
// The load generator runs on the same cores: the ratio is what N workers add there.
import os from "node:os";
import {
  type Autocannon,
  formatRounds,
  type Goal,
  ratioGoal,
  type Settings,
  sideBySide,
  type Target,
  times,
} from "./bench-measure";
import { cpuAroundRuns, formatShares, sharesOf } from "./bench-cpu";
import type { NextServer } from "./next-server";

/** One request of the load; each connection goes through the list in turn, again and again. */
export interface BenchRequest {
  path: string;
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
}

export interface WorkersBench {
  autocannon: Autocannon;
  settings: Settings;
  /** Starts the app under its supervisor with this many workers (`server/main.ts --workers`). */
  start(workers: number): Promise<NextServer>;
  /** Workers against one: BENCH_WORKERS, else one per core. */
  workers?: number;
}

/** N workers on this machine must serve at least this many times one worker's load. */
const GOAL = 1.6;

export function benchWorkers(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.BENCH_WORKERS ? Number(env.BENCH_WORKERS) : os.availableParallelism();
  if (!Number.isInteger(value) || value < 1 || value > 64) {
    throw new Error("BENCH_WORKERS must be a whole number from 1 to 64");
  }
  return value;
}

/** Workers that said they serve, in the server's log. */
const readyWorkers = (server: NextServer) =>
  server.logs().match(/> Ready on \S+ \(\w+, worker \d+\)/g)?.length ?? 0;

async function allReady(server: NextServer, workers: number) {
  const deadline = Date.now() + 60_000;
  while (readyWorkers(server) < workers) {
    if (Date.now() > deadline) {
      throw new Error(`${workers} workers did not all start:\n${server.logs()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The load as autocannon's target on `server`. */
const loadOn = (server: NextServer, requests: BenchRequest[]): Target => ({
  url: server.url,
  requests: requests.map((request) => ({ method: "GET", ...request })),
});

/**
 * `requests` against N workers and against one, side by side; the goal row is N workers'
 * throughput over one's. Both servers are stopped before it returns.
 */
export async function workersGoal(
  bench: WorkersBench,
  requests: BenchRequest[],
  label?: string,
): Promise<Goal> {
  const { autocannon, settings, start, workers = benchWorkers() } = bench;
  const servers: NextServer[] = [];
  const started = async (count: number) => {
    const server = await start(count);
    servers.push(server);
    await allReady(server, count);
    return server;
  };
  try {
    const many = await started(workers);
    const one = await started(1);
    // The cores each side used, by whom: what one worker leaves idle bounds what more add.
    const cpu = cpuAroundRuns((which) => (which === "real" ? many : one).pid);
    const measured = await sideBySide(
      autocannon,
      loadOn(many, requests),
      loadOn(one, requests),
      settings,
      cpu.around,
    );
    const load = label ?? requests.map((r) => `${r.method ?? "GET"} ${r.path}`).join(", ");
    console.log(
      `\n  ${workers} workers vs 1 (${load}): ` +
        `${measured.real.perSecond.toFixed(0)} vs ${measured.ceiling.perSecond.toFixed(0)} req/s ` +
        `(p99 ${measured.real.p99.toFixed(0)} vs ${measured.ceiling.p99.toFixed(0)} ms; rounds ` +
        `${formatRounds(measured.rounds, times)}), ` +
        `${os.availableParallelism()} cores` +
        `\n    ${workers} workers: ${formatShares(sharesOf(cpu.tallies.real))}` +
        `\n    1 worker: ${formatShares(sharesOf(cpu.tallies.ceiling))}`,
    );
    return ratioGoal(
      `${workers} workers vs 1 on ${os.availableParallelism()} cores: throughput`,
      measured.real.perSecond / measured.ceiling.perSecond,
      { atLeast: GOAL },
      times,
    );
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}
