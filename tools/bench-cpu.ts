// Where the machine's cores go during a benchmark run (Linux /proc): the server's process
// group, PostgreSQL, the benchmark process itself (autocannon runs in it) and everything
// else, with the idle time beside them. The workers' row prints it for each side, since
// what N workers can add on a machine is bounded by what one worker leaves idle.
import fs from "node:fs";
import type { AutocannonResult } from "./bench-measure";
import { listProcesses, type ProcessInfo, TICKS_PER_SECOND } from "./proc";

export interface CpuSnapshot {
  at: number;
  /** Idle ticks of the whole machine, summed over cores (iowait included). */
  idle: number;
  processes: Map<number, ProcessInfo>;
}

export function cpuSnapshot(): CpuSnapshot {
  const [cpu] = fs.readFileSync("/proc/stat", "utf8").split("\n");
  // cpu user nice system idle iowait irq softirq steal ...
  const values = cpu!.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3]! + values[4]!;
  const processes = new Map(listProcesses().map((info) => [info.pid, info]));
  return { at: Date.now(), idle, processes };
}

/** A figure for each user of the cores, and for the time none used. */
interface BySource {
  server: number;
  postgres: number;
  bench: number;
  other: number;
  idle: number;
}

/** Cores used on average between two snapshots, by who used them. */
export type CpuShares = BySource;

/** CPU time used between two snapshots, in milliseconds summed over cores, by who used it. */
export type CpuMilliseconds = BySource;

/**
 * Splits the machine's ticks between `before` and `after`: the process group `serverGroup`
 * (the app under its supervisor, every worker), processes named postgres, this process, the
 * rest. A process that started or ended in between counts only what /proc saw of it.
 */
function ticksBySource(before: CpuSnapshot, after: CpuSnapshot, serverGroup: number): BySource {
  const ticks = { server: 0, postgres: 0, bench: 0, other: 0 };
  for (const [pid, now] of after.processes) {
    const used = now.ticks - (before.processes.get(pid)?.ticks ?? 0);
    if (used <= 0) continue;
    const who =
      now.pgid === serverGroup
        ? "server"
        : now.command === "postgres"
          ? "postgres"
          : pid === process.pid
            ? "bench"
            : "other";
    ticks[who] += used;
  }
  return { ...ticks, idle: after.idle - before.idle };
}

const mapSources = (values: BySource, f: (value: number) => number): BySource => ({
  server: f(values.server),
  postgres: f(values.postgres),
  bench: f(values.bench),
  other: f(values.other),
  idle: f(values.idle),
});

/** The CPU time each used between `before` and `after` (split as ticksBySource says). */
export function cpuMilliseconds(
  before: CpuSnapshot,
  after: CpuSnapshot,
  serverGroup: number,
): CpuMilliseconds {
  return mapSources(
    ticksBySource(before, after, serverGroup),
    (ticks) => (ticks * 1000) / TICKS_PER_SECOND,
  );
}

/** The cores each used on average between `before` and `after` (split as ticksBySource says). */
export function cpuShares(before: CpuSnapshot, after: CpuSnapshot, serverGroup: number): CpuShares {
  const seconds = (after.at - before.at) / 1000;
  return mapSources(
    ticksBySource(before, after, serverGroup),
    (ticks) => ticks / TICKS_PER_SECOND / seconds,
  );
}

export const formatShares = (shares: CpuShares) =>
  `server ${shares.server.toFixed(2)}, PostgreSQL ${shares.postgres.toFixed(2)}, ` +
  `load generator ${shares.bench.toFixed(2)}, other ${shares.other.toFixed(2)}, ` +
  `idle ${shares.idle.toFixed(2)} cores`;

/** CPU time by whom over some runs, with the requests they answered and their length. */
export interface CpuTally {
  used: CpuMilliseconds;
  requests: number;
  seconds: number;
}

export const emptyTally = (): CpuTally => ({
  used: { server: 0, postgres: 0, bench: 0, other: 0, idle: 0 },
  requests: 0,
  seconds: 0,
});

/** Adds a run between `before` and `after` that answered `requests` to `tally`. */
export function addRun(
  tally: CpuTally,
  before: CpuSnapshot,
  after: CpuSnapshot,
  serverGroup: number,
  requests: number,
): void {
  const used = cpuMilliseconds(before, after, serverGroup);
  for (const key of Object.keys(used) as (keyof CpuMilliseconds)[]) tally.used[key] += used[key];
  tally.requests += requests;
  tally.seconds += (after.at - before.at) / 1000;
}

/** The cores each used on average over a tally's runs. */
export const sharesOf = (tally: CpuTally): CpuShares =>
  mapSources(tally.used, (used) => used / 1000 / Math.max(tally.seconds, 0.001));

/**
 * An `around` for sideBySide (tools/bench-measure.ts) that tallies the CPU each side's runs
 * used, by whom, and the requests they answered; `groupOf`: the process group of that side's
 * server.
 */
export function cpuAroundRuns(groupOf: (which: "real" | "ceiling") => number) {
  const tallies = { real: emptyTally(), ceiling: emptyTally() };
  const around = async (
    which: "real" | "ceiling",
    run: () => Promise<AutocannonResult>,
  ): Promise<AutocannonResult> => {
    const before = cpuSnapshot();
    const result = await run();
    addRun(tallies[which], before, cpuSnapshot(), groupOf(which), result.requests.total);
    return result;
  };
  return { tallies, around };
}

/**
 * Milliseconds of CPU each used per request answered (CPU time over the requests the same
 * runs answered), and the cores left idle on average: a handler that costs more shows where,
 * beside its ceiling's figures.
 */
export function formatPerRequest(tally: CpuTally): string {
  const ms = (used: number) => (used / Math.max(tally.requests, 1)).toFixed(2);
  return (
    `server ${ms(tally.used.server)}, PostgreSQL ${ms(tally.used.postgres)}, ` +
    `load generator ${ms(tally.used.bench)}, other ${ms(tally.used.other)} ms; ` +
    `idle ${sharesOf(tally).idle.toFixed(2)} cores`
  );
}
