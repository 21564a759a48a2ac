// The chaos run's judgement of a request: what counts as expected under a fault and what is a
// product failure. The run itself is `npm run chaos` (by hand); this checks its rules.
import { describe, expect, it } from "vitest";
import { classify, faultTable } from "./classify";
import type { FaultWindow } from "./faults";
import { parseOptions } from "./options";
import { HANG, NO_ANSWER, normalisePath, type RequestRecord } from "./recorder";

const request = (overrides: Partial<RequestRecord>): RequestRecord => ({
  client: "poster-0",
  server: "app-a",
  method: "POST",
  endpoint: "POST /api/v1/jobs",
  path: "/api/v1/jobs",
  start: 10_000,
  end: 10_050,
  status: 201,
  ...overrides,
});

const postgres: FaultWindow = { name: "postgres-fast", start: 9_000, back: 15_000 };
const appKill: FaultWindow = { name: "app-kill", start: 30_000, back: 40_000, server: "app-b" };
const windows = [postgres, appKill];
const NOW = 100_000;

describe("judging a request", () => {
  it("a 503 with Retry-After during a fault (or its 5 s of grace) is expected", () => {
    const during = request({ status: 503, retryAfter: "1", code: "unavailable" });
    expect(classify(during, windows, NOW)).toMatchObject({ verdict: "expected", window: postgres });
    const inGrace = request({ status: 503, retryAfter: "1", start: 19_000, end: 19_010 });
    expect(classify(inGrace, windows, NOW).verdict).toBe("expected");
  });

  it("a 503 after the grace, or one without Retry-After, is a failure", () => {
    const late = request({ status: 503, retryAfter: "1", start: 21_000, end: 21_010 });
    expect(classify(late, windows, NOW)).toMatchObject({
      verdict: "failure",
      why: "503 outside any fault window",
    });
    const bare = request({ status: 503, code: "unavailable" });
    expect(classify(bare, windows, NOW)).toMatchObject({
      verdict: "failure",
      why: "503 unavailable without Retry-After",
    });
  });

  it("a 500 is a failure even during a fault, and so is a hang", () => {
    expect(classify(request({ status: 500, code: "internal_error" }), windows, NOW)).toMatchObject({
      verdict: "failure",
      why: "500 internal_error",
    });
    expect(classify(request({ status: HANG }), windows, NOW).verdict).toBe("failure");
  });

  it("no answer is expected only from the server a fault killed", () => {
    const killed = request({ status: NO_ANSWER, server: "app-b", start: 35_000, end: 35_001 });
    expect(classify(killed, windows, NOW).verdict).toBe("expected");
    const other = request({ status: NO_ANSWER, server: "app-a", start: 35_000, end: 35_001 });
    expect(classify(other, windows, NOW).verdict).toBe("failure");
  });

  it("4xx are refusals, not failures; the settle challenge's 402 is a success", () => {
    expect(classify(request({ status: 409, code: "already_bid" }), [], NOW).verdict).toBe(
      "client-error",
    );
    const challenge = request({
      status: 402,
      challenge: true,
      endpoint: "POST /api/jobs/:id/settle",
    });
    expect(classify(challenge, [], NOW).verdict).toBe("ok");
    expect(classify({ ...challenge, challenge: undefined }, [], NOW).verdict).toBe("client-error");
    // The same refusal while a dependency is down: the fault decided it.
    expect(classify({ ...challenge, challenge: undefined }, windows, NOW)).toMatchObject({
      verdict: "failure",
      why: "402: a signed payment refused during a fault",
    });
  });

  it("the table counts each fault's requests and the first write after it", () => {
    const records = [
      request({ status: 503, retryAfter: "1" }),
      request({ status: 201, start: 15_500, end: 15_700 }),
      request({ status: 201, start: 60_000, end: 60_100 }),
    ];
    const rows = faultTable(
      records.map((r) => classify(r, windows, NOW)),
      windows,
    );
    expect(rows[0]).toMatchObject({ fault: "postgres-fast", requests: 2, ok: 1, expected: 1 });
    expect(rows[0]!.firstWrite).toBe("0.7");
    expect(rows.at(-1)).toMatchObject({ fault: "all", requests: 3, failures: 0 });
  });
});

describe("the run's inputs", () => {
  it("ids in a path become :id", () => {
    expect(normalisePath("/api/v1/jobs/job_uxDcvG_ScYAzINW_/proposals")).toBe(
      "/api/v1/jobs/:id/proposals",
    );
    expect(normalisePath("/api/v1/jobs")).toBe("/api/v1/jobs");
  });

  it("options: flags win over the environment; unknown faults and out-of-range values refused", () => {
    expect(parseOptions(["--clients", "3"], { CHAOS_CLIENTS: "9" }).clients).toBe(3);
    expect(parseOptions([], { CHAOS_FAULTS: "redis-stop,app-kill" }).faults).toEqual([
      "redis-stop",
      "app-kill",
    ]);
    expect(parseOptions(["--soak", "--minutes", "3"], {})).toMatchObject({
      soak: true,
      minutes: 3,
      faults: [],
    });
    expect(() => parseOptions(["--faults", "meteor"], {})).toThrow(/unknown fault "meteor"/);
    expect(() => parseOptions(["--clients", "0"], {})).toThrow(/--clients must be/);
  });
});
