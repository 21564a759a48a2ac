// The "Error codes" table of docs/api.md is what `npm run docs:errors` writes from
// lib/shared/error-codes.ts, formatted by Prettier as `npm run format:check` wants it: a code
// added, changed or removed without regenerating, or the table edited by hand, fails here.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, PAYMENT_REFUSAL_CODES, statusesOf } from "@/lib/shared/error-codes";
import {
  API_DOC,
  END_MARKER,
  generatedApiDoc,
  START_MARKER,
  withErrorTable,
} from "./generate-error-docs";

const current = () => fs.readFileSync(API_DOC, "utf8");

/** The table's rows between the markers: code → the status cell and the meaning cell. */
function rowsOf(doc: string): Map<string, { status: string; meaning: string }> {
  const region = doc.slice(doc.indexOf(START_MARKER), doc.indexOf(END_MARKER));
  const rows = new Map<string, { status: string; meaning: string }>();
  for (const line of region.split("\n")) {
    const match = /^\|\s*([\d, ]+?)\s*\|\s*`([a-z0-9_]+)`\s*\|\s*(.*?)\s*\|$/.exec(line);
    if (match) rows.set(match[2]!, { status: match[1]!, meaning: match[3]! });
  }
  return rows;
}

describe("docs/api.md's error codes", () => {
  it("are what npm run docs:errors writes (run it after changing lib/shared/error-codes.ts)", async () => {
    expect(current()).toBe(await generatedApiDoc(current()));
  });

  it("list every code, the payment refusals included, with its statuses and description", () => {
    const rows = rowsOf(current());
    const codes = Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[];
    expect([...rows.keys()]).toEqual(codes);
    for (const code of Object.keys(PAYMENT_REFUSAL_CODES)) expect(rows.has(code), code).toBe(true);
    for (const code of codes) {
      expect(rows.get(code), code).toEqual({
        status: statusesOf(code).join(", "),
        meaning: ERROR_CODES[code].description,
      });
    }
  });

  it("would catch a stale table: a row removed by hand is written back", async () => {
    const doc = current();
    const stale = doc.replace(/^\| 409 +\| `already_paid` .*\n/m, "");
    expect(stale).not.toBe(doc);
    expect(await generatedApiDoc(stale)).toBe(await generatedApiDoc(doc));
    expect(stale).not.toBe(await generatedApiDoc(stale));
  });

  it("refuses a document without exactly one marked region", () => {
    expect(() => withErrorTable("# API\n")).toThrow(/error-codes:start/);
    expect(() =>
      withErrorTable(`${START_MARKER}\n${END_MARKER}\n${START_MARKER}\n${END_MARKER}\n`),
    ).toThrow(/one/);
  });
});
