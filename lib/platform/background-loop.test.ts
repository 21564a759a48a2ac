// The background loops' behaviour around an outage: they back off while a dependency is down,
// say so once and once more when it is back, and keep logging real failures in full.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  afterPass,
  type LoopState,
  OUTAGE_BACKOFF_MAX_MS,
  startBackgroundLoop,
} from "./background-loop";

const down = () => new Error("Connection terminated unexpectedly");

describe("afterPass", () => {
  const fresh: LoopState = { failures: 0, nextRunAt: 0 };

  it("backs off while a dependency is down, doubling from the interval up to the cap", () => {
    let state = fresh;
    const waits: number[] = [];
    const lines: (string | undefined)[] = [];
    for (let pass = 0; pass < 6; pass++) {
      const now = 10_000 + pass;
      const outcome = afterPass("Loop", state, 1_000, down(), now);
      state = outcome.state;
      waits.push(state.nextRunAt - now);
      lines.push(outcome.log?.line);
    }
    expect(waits).toEqual([
      1_000,
      2_000,
      4_000,
      OUTAGE_BACKOFF_MAX_MS,
      OUTAGE_BACKOFF_MAX_MS,
      OUTAGE_BACKOFF_MAX_MS,
    ]);
    expect(lines[0]).toBe(
      "Loop: a dependency is unavailable (Connection terminated unexpectedly); retrying with backoff",
    );
    expect(lines.slice(1).every((line) => line === undefined)).toBe(true);
    const back = afterPass("Loop", state, 1_000, undefined, 13_400);
    expect(back.state).toEqual({ failures: 0, nextRunAt: 13_400 });
    expect(back.log).toEqual({
      level: "info",
      line: "Loop: running again (a dependency was down or too slow for 3 s)",
    });
  });

  it("never waits less than the interval, and a loop that succeeds says nothing", () => {
    expect(afterPass("Loop", fresh, 10_000, down(), 0).state.nextRunAt).toBe(10_000);
    expect(afterPass("Loop", fresh, 10_000, undefined, 5)).toEqual({
      state: { failures: 0, nextRunAt: 5 },
    });
  });

  it("backs off the same way when PostgreSQL cancels a statement past its statement_timeout", () => {
    // node-postgres's error for SQLSTATE 57014, as the pool's statement_timeout raises it.
    const cancelled = Object.assign(new Error("canceling statement due to statement timeout"), {
      code: "57014",
    });
    const first = afterPass("Loop", fresh, 1_000, cancelled, 100);
    expect(first.state).toEqual({ failures: 1, outageSince: 100, nextRunAt: 1_100 });
    expect(first.log?.level).toBe("warn");
    expect(first.log?.line).toMatch(
      /^Loop: the database cancelled a statement that ran too long \(.*57014.*\); retrying with backoff$/,
    );
    expect(afterPass("Loop", first.state, 1_000, cancelled, 1_100).state.nextRunAt).toBe(3_100);
  });

  it("logs any other failure in full, every time, without backing off", () => {
    const outcome = afterPass("Loop", fresh, 1_000, new TypeError("a bug"), 7);
    expect(outcome.state.nextRunAt).toBe(7);
    expect(outcome.log?.level).toBe("error");
    expect(outcome.log?.line).toMatch(/^Loop: TypeError: a bug\n\s+at /);
  });
});

describe("startBackgroundLoop", () => {
  afterEach(() => vi.restoreAllMocks());

  it("goes on by itself after an outage, one line when it starts and one when it ends", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    let passes = 0;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const timer = startBackgroundLoop("Loop", 10, async () => {
      passes += 1;
      if (passes <= 3) throw down();
      if (passes === 5) done();
    });
    try {
      await finished;
    } finally {
      clearInterval(timer);
    }
    expect(warn).toHaveBeenCalledOnce();
    expect(info).toHaveBeenCalledOnce();
    expect(info.mock.calls[0]![0]).toMatch(/^Loop: running again/);
  });

  it("never runs two passes at once", async () => {
    let running = 0;
    let most = 0;
    let passes = 0;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const timer = startBackgroundLoop("Loop", 5, async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 30));
      running -= 1;
      if (++passes === 3) done();
    });
    try {
      await finished;
    } finally {
      clearInterval(timer);
    }
    expect(most).toBe(1);
  });
});
