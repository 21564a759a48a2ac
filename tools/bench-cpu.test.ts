import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { cpuShares, cpuSnapshot, meanShares } from "./bench-cpu";

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

  it("averages shares per source", () => {
    const one = { server: 1, postgres: 0.5, bench: 0.25, other: 0, idle: 0.25 };
    const two = { server: 0, postgres: 0.5, bench: 0.75, other: 0.5, idle: 0.25 };
    expect(meanShares([one, two])).toEqual({
      server: 0.5,
      postgres: 0.5,
      bench: 0.5,
      other: 0.25,
      idle: 0.25,
    });
  });
});
