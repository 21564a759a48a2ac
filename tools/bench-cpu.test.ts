import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import {
  addRun,
  type CpuSnapshot,
  cpuMilliseconds,
  cpuShares,
  cpuSnapshot,
  emptyTally,
  formatPerRequest,
  sharesOf,
} from "./bench-cpu";
import type { ProcessInfo } from "./proc";

/** A snapshot taken at `at` ms of the processes given as [pid, pgid, command, ticks]. */
function snapshot(
  at: number,
  idle: number,
  processes: [number, number, string, number][],
): CpuSnapshot {
  const infos = processes.map(([pid, pgid, command, ticks]): ProcessInfo => ({
    pid,
    ppid: 1,
    pgid,
    command,
    ticks,
  }));
  return { at, idle, processes: new Map(infos.map((info) => [info.pid, info])) };
}

/** Literal pids start past Linux's largest (2^22), so none can be this test's own process.pid. */
const P = 5_000_000;

describe("the benchmark's CPU shares", () => {
  it("counts a busy process group as the server's and this process's own work as the bench's", async () => {
    const before = cpuSnapshot();
    // A detached child leads its own process group, as the benchmark's servers do.
    const child = spawn(process.execPath, ["-e", "for (;;);"], { detached: true, stdio: "ignore" });
    const exited = once(child, "exit");
    const spinUntil = Date.now() + 400;
    while (Date.now() < spinUntil);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Read while the child still runs (a process that has exited is no longer in /proc).
    const after = cpuSnapshot();
    child.kill("SIGKILL");
    await exited;
    const group = child.pid!;
    const shares = cpuShares(before, after, group);
    // Loose bounds: on a machine busy with other work (CI's other suites) each gets a share of
    // the cores only. A group not recognised would count 0 for the server.
    expect(shares.server).toBeGreaterThan(0.05);
    expect(shares.bench).toBeGreaterThan(0.05);
    // One busy thread (and Node's own few): never more than about one core.
    expect(shares.server).toBeLessThan(1.5);
    expect(shares.idle).toBeGreaterThanOrEqual(0);
  });

  it("splits the ticks between two snapshots by who used them, in milliseconds and in cores", () => {
    const server = P + 500;
    const before = snapshot(10_000, 1_000, [
      [P + 501, server, "next-server", 100],
      [P + 502, server, "node", 40],
      [P + 600, P + 600, "postgres", 7],
      [process.pid, 77, "MainThread", 1_000],
      [P + 700, P + 700, "redis-server", 3],
      // Its pid is taken by another process by the second snapshot: fewer ticks, not counted.
      [P + 800, P + 800, "sleep", 90],
    ]);
    // Two seconds later.
    const after = snapshot(12_000, 1_150, [
      [P + 501, server, "next-server", 160],
      [P + 502, server, "node", 60],
      // Started in between: all its ticks are in the interval.
      [P + 503, server, "node", 20],
      [P + 600, P + 600, "postgres", 57],
      [process.pid, 77, "MainThread", 1_030],
      [P + 700, P + 700, "redis-server", 13],
      [P + 800, P + 800, "sh", 2],
    ]);
    // 100 ticks a second: the server's 60 + 20 + 20 ticks are 1 s of CPU, half a core over 2 s.
    expect(cpuMilliseconds(before, after, server)).toEqual({
      server: 1_000,
      postgres: 500,
      bench: 300,
      other: 100,
      idle: 1_500,
    });
    expect(cpuShares(before, after, server)).toEqual({
      server: 0.5,
      postgres: 0.25,
      bench: 0.15,
      other: 0.05,
      idle: 0.75,
    });
  });

  it("tallies runs and writes each source's CPU per request and the cores left idle", () => {
    const server = P + 500;
    const tally = emptyTally();
    // Two runs of 2 s each: the server's 60 + 30 ticks (0.9 s), PostgreSQL's 45, the rest's 1.
    const runs: [CpuSnapshot, CpuSnapshot, number][] = [
      [
        snapshot(0, 0, [
          [P + 501, server, "node", 0],
          [P + 600, P + 600, "postgres", 0],
        ]),
        snapshot(2_000, 50, [
          [P + 501, server, "node", 60],
          [P + 600, P + 600, "postgres", 30],
        ]),
        400,
      ],
      [
        snapshot(5_000, 50, [
          [P + 501, server, "node", 60],
          [P + 700, P + 700, "sh", 0],
        ]),
        snapshot(7_000, 100, [
          [P + 501, server, "node", 90],
          [P + 700, P + 700, "sh", 1],
          [P + 600, P + 600, "postgres", 15],
        ]),
        200,
      ],
    ];
    for (const [before, after, requests] of runs) addRun(tally, before, after, server, requests);
    expect(tally).toEqual({
      used: { server: 900, postgres: 450, bench: 0, other: 10, idle: 1_000 },
      requests: 600,
      seconds: 4,
    });
    // Over 4 s: 0.9 s of the server's is 0.225 cores; 1 s idle, 0.25.
    expect(sharesOf(tally)).toEqual({
      server: 0.225,
      postgres: 0.1125,
      bench: 0,
      other: 0.0025,
      idle: 0.25,
    });
    // 900 ms over 600 requests; 1 s idle over 4 s.
    expect(formatPerRequest(tally)).toBe(
      "server 1.50, PostgreSQL 0.75, load generator 0.00, other 0.02 ms; idle 0.25 cores",
    );
  });
});
