import { describe, expect, it } from "vitest";
import { startHeapGuard } from "./heap-guard";

describe("the heap guard", () => {
  it("sheds past the line and takes requests again only under it by the margin", () => {
    let used = 10;
    const lines: string[] = [];
    const guard = startHeapGuard(85, {
      intervalMs: 60_000,
      stats: () => ({ used_heap_size: used, heap_size_limit: 100 }),
      log: (line) => lines.push(line),
    });
    try {
      expect(guard.overloaded).toBe(false);
      used = 86;
      guard.sample();
      expect(guard.overloaded).toBe(true);
      used = 82;
      guard.sample();
      expect(guard.overloaded).toBe(true);
      used = 79;
      guard.sample();
      expect(guard.overloaded).toBe(false);
      expect(lines).toEqual([
        expect.stringMatching(/^Heap at 86% of its limit .*answering 503 until it is under 80%/),
        expect.stringMatching(/^Heap back to 79%/),
      ]);
    } finally {
      guard.stop();
    }
  });

  it("reads the real heap by default", () => {
    const guard = startHeapGuard(99, { intervalMs: 60_000 });
    expect(guard.overloaded).toBe(false);
    guard.stop();
  });
});
