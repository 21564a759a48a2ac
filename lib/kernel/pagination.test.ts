import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeCursor, fitPage, jsonBytesAtMost, toPage } from "./pagination";

const utf8 = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

describe("page byte bounds", () => {
  it("jsonBytesAtMost is never less than the JSON's real size", () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.string({ unit: "binary" }),
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 5 }),
        fc.dictionary(fc.string(), tie("value"), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        expect(jsonBytesAtMost(value)).toBeGreaterThanOrEqual(utf8(value));
      }),
      { numRuns: 3000 },
    );
  });

  it("is close for plain text (it does not cut pages needlessly)", () => {
    const job = {
      title: "Summarise",
      description: "x".repeat(20_000),
      requirements: ["y".repeat(500)],
    };
    expect(jsonBytesAtMost(job)).toBeLessThan(utf8(job) * 1.05);
  });

  it("cuts a page at the byte bound, always keeps one item, and continues after the last kept", () => {
    const big = (n: number) => ({ id: `j${n}`, text: "z".repeat(300_000) });
    const views = [big(1), big(2), big(3), big(4), big(5)];
    const page = fitPage(views, false, (index) => `after-${index}`, 1024 * 1024);
    expect(page.items.map((view) => view.id)).toEqual(["j1", "j2", "j3"]);
    expect(page.nextCursor).toBe("after-2");
    expect(utf8(page.items)).toBeLessThanOrEqual(1024 * 1024);

    const huge = fitPage([{ text: "z".repeat(2_000_000) }], false, () => "x", 1024 * 1024);
    expect([huge.items.length, huge.nextCursor]).toEqual([1, null]);
    const small = fitPage([{ a: 1 }, { a: 2 }], true, (index) => `after-${index}`);
    expect(small).toEqual({ items: [{ a: 1 }, { a: 2 }], nextCursor: "after-1" });
    expect(fitPage([], false, () => "x")).toEqual({ items: [], nextCursor: null });
  });

  it("toPage keyset cursors point after the last row kept", () => {
    const row = (n: number) => ({
      id: `r${n}`,
      createdAt: new Date(Date.UTC(2026, 0, n)),
      body: "b".repeat(400_000),
    });
    const rows = [row(5), row(4), row(3), row(2)];
    const page = toPage(rows, 3, (r) => ({ id: r.id, body: r.body }));
    expect(page.items.map((item) => item.id)).toEqual(["r5", "r4"]);
    expect(page.nextCursor).toBe(encodeCursor(rows[1]!));
  });
});

describe("jsonBytesAtMost on odd strings", () => {
  it.each([
    ["a lone high surrogate", "\ud800"],
    ["a lone low surrogate", "x\udc00y"],
    ["a surrogate pair", "😀"],
    ["control characters", "\u0001\u0002\n\t"],
    ["quotes and backslashes", '"\\"\\'],
  ])("%s", (_what, value) => {
    expect(jsonBytesAtMost(value)).toBeGreaterThanOrEqual(utf8(value));
  });
});
