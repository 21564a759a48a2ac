import { describe, expect, it } from "vitest";
import { setBounded } from "./bounded-map";

describe("setBounded", () => {
  it("holds at most `max` entries, the key added longest ago going first", () => {
    const map = new Map<string, number>();
    for (let i = 0; i < 5; i++) setBounded(map, `k${i}`, i, 3);
    expect([...map]).toEqual([
      ["k2", 2],
      ["k3", 3],
      ["k4", 4],
    ]);
  });

  it("moves a key it holds last with its new value, evicting nothing", () => {
    const map = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    setBounded(map, "a", 10, 2);
    expect([...map]).toEqual([
      ["b", 2],
      ["a", 10],
    ]);
    // The key set again is now the newest: the next new key evicts the other.
    setBounded(map, "c", 3, 2);
    expect([...map]).toEqual([
      ["a", 10],
      ["c", 3],
    ]);
  });
});
