import { afterEach, describe, expect, it, vi } from "vitest";
import { RecentMap } from "./recent-map";

describe("RecentMap", () => {
  afterEach(() => vi.useRealTimers());

  it("answers a value only while it is younger than maxAgeMs", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const memo = new RecentMap<string, number>({ maxAgeMs: 5_000, max: 10 });
    memo.set("a", 1);
    vi.setSystemTime(1_000_000 + 4_999);
    expect(memo.get("a")).toBe(1);
    vi.setSystemTime(1_000_000 + 5_000);
    expect(memo.get("a")).toBeUndefined();
    expect(memo.get("never set")).toBeUndefined();
  });

  it("holds at most `max` entries, the oldest dropped first", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const memo = new RecentMap<string, number>({ maxAgeMs: 60_000, max: 3 });
    for (let i = 0; i < 5; i++) memo.set(`k${i}`, i);
    expect(memo.size).toBe(3);
    expect(["k0", "k1", "k2", "k3", "k4"].map((key) => memo.get(key))).toEqual([
      undefined,
      undefined,
      2,
      3,
      4,
    ]);
  });

  it("moves a key set again last, so it outlives entries set after its first value", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const memo = new RecentMap<string, number>({ maxAgeMs: 60_000, max: 2 });
    memo.set("a", 1);
    memo.set("b", 2);
    memo.set("a", 10);
    memo.set("c", 3);
    expect([memo.get("a"), memo.get("b"), memo.get("c")]).toEqual([10, undefined, 3]);
  });

  it("drops expired entries when a key is set, though under its bound", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const memo = new RecentMap<string, number>({ maxAgeMs: 1_000, max: 100 });
    for (let i = 0; i < 50; i++) memo.set(`old${i}`, i);
    vi.setSystemTime(1_000_000 + 1_000);
    memo.set("new", 1);
    expect(memo.size).toBe(1);
  });

  it("takes an entry as expired when the clock steps back past it", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const memo = new RecentMap<string, number>({ maxAgeMs: 5_000, max: 10 });
    memo.set("a", 1);
    vi.setSystemTime(1_000_000 - 1);
    expect(memo.get("a")).toBeUndefined();
    memo.set("b", 2);
    expect(memo.size).toBe(1);
  });

  it("forgets a deleted key", () => {
    const memo = new RecentMap<string, number>({ maxAgeMs: 60_000, max: 10 });
    memo.set("a", 1);
    memo.delete("a");
    expect(memo.get("a")).toBeUndefined();
    expect(memo.size).toBe(0);
  });
});
