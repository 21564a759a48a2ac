import { describe, expect, it } from "vitest";
import { withServerTiming } from "@/lib/platform/server-timing";
import { type MixedRequest, splitByKind } from "./bench-mixed";
import { serverTiming, type Timing } from "./bench-timing";

describe("serverTiming", () => {
  it("reads the header the benchmark server writes", async () => {
    const response = await withServerTiming(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return new Response("{}");
    });
    const timing = serverTiming(response.headers, "a read");
    expect(timing.total).toBeGreaterThanOrEqual(4);
    expect(timing).toMatchObject({ db: 0, dbCalls: 0, chain: 0, chainCalls: 0 });
  });

  it("reads the statements and the waits", () => {
    const headers = new Headers({
      "server-timing":
        'total;dur=2.50, db;dur=1.75;desc="3 queries", chain;dur=0.40;desc="2 calls"',
    });
    expect(serverTiming(headers, "a read")).toEqual({
      total: 2.5,
      db: 1.75,
      dbCalls: 3,
      chain: 0.4,
      chainCalls: 2,
    });
  });

  it("says which answer had no header", () => {
    expect(() => serverTiming(new Headers(), "/api/v1/jobs?limit=10")).toThrow(
      '/api/v1/jobs?limit=10: no total in Server-Timing ""',
    );
  });
});

describe("splitByKind", () => {
  it("gives each kind's mean statements, wait and handler time, in the order kinds first come", () => {
    const request = (kind: string): MixedRequest => ({ kind, path: "/", after: 0 });
    const timing = (total: number, db: number, dbCalls: number): Timing => ({
      total,
      db,
      dbCalls,
      chain: 0,
      chainCalls: 0,
    });
    expect(
      splitByKind(
        [request("search q="), request("job"), request("job"), request("job"), request("agent")],
        [timing(6, 5, 3), timing(1, 0.5, 1), timing(2, 1, 1), timing(0.2, 0, 0), timing(0.1, 0, 0)],
      ),
    ).toEqual([
      "search q=: 3.00 statements, 5.00 of 6.00 ms on PostgreSQL",
      "job: 1.00 statements, 0.75 of 1.50 ms on PostgreSQL (1 from the cache)",
      "agent: all 1 from the cache",
    ]);
  });
});
