// npm run docs:errors: writes the "Error codes" table of docs/api.md, between its
// `<!-- error-codes:start -->` and `<!-- error-codes:end -->` markers, from ERROR_CODES in
// lib/shared/error-codes.ts (the one list of codes the API answers), then formats the file
// with Prettier, as `npm run format:check` expects it. tools/generate-error-docs.test.ts fails
// when the file differs from what this writes.
import fs from "node:fs";
import path from "node:path";
import { format, resolveConfig } from "prettier";
import { ERROR_CODES, statusesOf } from "@/lib/shared/error-codes";
import type { ErrorCode } from "@/lib/shared/error-codes";

export const API_DOC = "docs/api.md";
export const START_MARKER = "<!-- error-codes:start -->";
export const END_MARKER = "<!-- error-codes:end -->";

const cell = (text: string) => text.replace(/\|/g, "\\|");

/**
 * The table, one row per code in ERROR_CODES' order (grouped by kind there), the payment
 * refusals (PAYMENT_REFUSAL_CODES) included: they are ERROR_CODES' 402s.
 */
export function errorCodesTable(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map(
    (code) =>
      `| ${statusesOf(code).join(", ")} | \`${code}\` | ${cell(ERROR_CODES[code].description)} |`,
  );
  return ["| Status | `code` | Meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

/** `doc` with the region between the markers replaced by the table (markers kept). */
export function withErrorTable(doc: string): string {
  const start = doc.indexOf(START_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (start < 0 || end < start || doc.indexOf(START_MARKER, start + 1) >= 0) {
    throw new Error(`${API_DOC} needs one ${START_MARKER} … ${END_MARKER} region`);
  }
  return (
    doc.slice(0, start + START_MARKER.length) + "\n\n" + errorCodesTable() + "\n\n" + doc.slice(end)
  );
}

/** What docs/api.md should hold: the table written in, the file formatted by Prettier. */
export async function generatedApiDoc(current: string): Promise<string> {
  const file = path.join(process.cwd(), API_DOC);
  const options = await resolveConfig(file);
  return format(withErrorTable(current), { ...options, filepath: file });
}

async function main() {
  const file = path.join(process.cwd(), API_DOC);
  const current = fs.readFileSync(file, "utf8");
  const next = await generatedApiDoc(current);
  fs.writeFileSync(file, next);
  console.log(
    next === current
      ? `${API_DOC}: the error codes are current`
      : `wrote ${Object.keys(ERROR_CODES).length} error codes into ${API_DOC}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
