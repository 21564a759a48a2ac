import { describe, expect, it } from "vitest";
import {
  type Autocannon,
  type AutocannonResult,
  formatRounds,
  formatSpread,
  percent,
  roundRatios,
  sideBySide,
} from "./bench-measure";

/** What autocannon would answer for `total` requests over `duration` seconds. */
const result = (total: number, duration = 2): AutocannonResult => ({
  // A round's rate is its total over its duration; the histogram's fields are not read.
  requests: { total, average: 0, p50: 0, p99: 0 },
  latency: { average: 1, p50: 1, p99: 2 },
  duration,
  errors: 0,
  timeouts: 0,
  non2xx: 0,
});

describe("sideBySide's rounds", () => {
  it("pairs each round's real run with that round's ceiling run, whichever went first", async () => {
    // The load generator itself (autocannon) scripted: each URL's runs answer in turn.
    const scripted: Record<string, number[]> = {
      "http://real": [100, 300, 200],
      "http://ceiling": [200, 400, 800],
    };
    const order: string[] = [];
    const autocannon: Autocannon = async ({ url }) => {
      order.push(url);
      return result(scripted[url]!.shift()!);
    };
    const measured = await sideBySide(
      autocannon,
      { url: "http://real" },
      { url: "http://ceiling" },
      { connections: 1, warmup: 0, duration: 2, rounds: 3 },
    );
    // Round two runs the ceiling first: its runs still pair by round, not by position.
    expect(order).toEqual([
      "http://real",
      "http://ceiling",
      "http://ceiling",
      "http://real",
      "http://real",
      "http://ceiling",
    ]);
    expect(measured.rounds).toEqual([0.5, 0.75, 0.25]);
    // The row's own ratio stays the rounds' totals over their time.
    expect(measured.real.perSecond / measured.ceiling.perSecond).toBeCloseTo(600 / 1400);
  });

  it("reads each round's rate from its own duration", () => {
    expect(roundRatios([result(100, 1), result(100, 4)], [result(100, 2), result(200, 2)])).toEqual(
      [2, 0.25],
    );
  });

  it("refuses rounds that did not run both sides", () => {
    expect(() => roundRatios([result(1)], [])).toThrow(/both sides/);
  });
});

describe("formatSpread", () => {
  it("gives the lowest and the highest round, in that order", () => {
    expect(formatSpread([0.58, 0.51, 0.55], percent)).toBe("51%–58%");
  });

  it("gives one figure when the rounds read the same", () => {
    expect(formatSpread([0.551, 0.549], percent)).toBe("55%");
    expect(formatSpread([0.6], percent)).toBe("60%");
  });
});

describe("formatRounds", () => {
  it("gives each round in the order run", () => {
    expect(formatRounds([0.58, 0.82, 0.72], percent)).toBe("58%, 82%, 72%");
  });
});
