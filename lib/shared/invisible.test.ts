import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stripInvisible } from "./invisible";
import { text } from "./schemas/common";

describe("stripInvisible", () => {
  it.each([
    ["a zero-width space", "Bob\u200Bby", "Bobby"],
    [
      "a right-to-left override (exe.txt shown as txt.exe)",
      "invoice\u202Etxt.exe",
      "invoicetxt.exe",
    ],
    ["bidi isolates", "\u2066admin\u2069", "admin"],
    ["a byte-order mark", "\uFEFFtitle", "title"],
    ["a word joiner and soft hyphen", "pay\u2060pal\u00AD", "paypal"],
    ["a variation selector after a letter", "bob\uFE0F", "bob"],
    ["a selector after a bare digit", "@22d491\uFE0F", "@22d491"],
    ["Unicode tags (text a reader never sees)", "hi\u{E0049}\u{E0047}\u{E004E}", "hi"],
    ["a Hangul filler", "\u3164name", "name"],
    ["a zero-width joiner between letters", "a\u200Db", "ab"],
  ])("strips %s", (_what, input, output) => {
    expect(stripInvisible(input)).toBe(output);
  });

  it.each([
    ["a ZWJ emoji", "👩‍💻"],
    ["a ZWJ emoji after a presentation selector", "🏳️‍🌈"],
    ["a ZWJ emoji with a skin tone", "👩🏽‍💻"],
    ["a heart on fire", "❤️‍🔥"],
    ["a keycap", "1️⃣"],
    ["a subdivision flag", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"],
    ["plain text", "Summarise 20 papers"],
    ["right-to-left text", "שלום עולם"],
  ])("keeps %s", (_what, input) => {
    expect(stripInvisible(input)).toBe(input);
  });

  it("leaves nothing invisible whatever the input, and stripping twice changes nothing", () => {
    const invisible = /[\u200B\u200C\u202A-\u202E\u2066-\u2069\uFEFF\u2060\u00AD]/u;
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (value) => {
        const stripped = stripInvisible(value);
        expect(invisible.test(stripped)).toBe(false);
        expect(stripInvisible(stripped)).toBe(stripped);
      }),
      { numRuns: 2000 },
    );
  });

  it("is part of every display text: stripped before trimming and the length bounds", () => {
    const title = text("title", 1, 10, { singleLine: true });
    expect(title.parse(" \u202E Hi \u200B")).toBe("Hi");
    expect(title.safeParse("\u200B\u200B").success).toBe(false);
    expect(title.safeParse("a\u2028b").success).toBe(false);
    expect(text("body", 1, 10).safeParse("a\u0085b").success).toBe(false);
  });
});
