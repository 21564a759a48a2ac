// npm run docs:mcp: writes docs/mcp-tools.md, the MCP server's tools (name, title, scope,
// read or write, arguments, result) and prompts, from the tools themselves (lib/api/mcp),
// formatted by Prettier as `npm run format:check` expects it. tools/generate-mcp-docs.test.ts
// fails when the file differs from what this writes.
import fs from "node:fs";
import path from "node:path";
import { format, resolveConfig } from "prettier";
import { listPrompts } from "@/lib/api/mcp/prompts";
import type { Tool } from "@/lib/api/mcp/tool";
import { mcpTools } from "@/lib/api/mcp/tools";

export const MCP_DOC = "docs/mcp-tools.md";

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
}

/** Enums longer than this read as their count (the inputSchema lists them). */
const LISTED_VALUES = 6;

/** A JSON Schema's type in a word or two: `string`, `integer`, `boolean`, `array of object`. */
function typeOf(schema: JsonSchema): string {
  if (schema.enum) {
    return schema.enum.length > LISTED_VALUES
      ? `one of ${schema.enum.length} values`
      : schema.enum.map((value) => JSON.stringify(value)).join(" / ");
  }
  if (schema.anyOf) return [...new Set(schema.anyOf.map(typeOf))].join(" or ");
  if (schema.type === "array") return `array of ${schema.items ? typeOf(schema.items) : "any"}`;
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  return schema.type ?? "any";
}

function argumentsOf(tool: Tool): string {
  const required = new Set(tool.inputSchema.required ?? []);
  const entries = Object.entries(tool.inputSchema.properties ?? {});
  if (entries.length === 0) return "none";
  return entries
    .map(([name, schema]) => `\`${name}${required.has(name) ? "" : "?"}\`: ${typeOf(schema)}`)
    .join(", ");
}

/** The result's top-level fields, as the outputSchema's first branch (not a refusal) says. */
function resultOf(tool: Tool): string {
  const [result] = (tool.outputSchema.anyOf ?? []) as { properties?: Record<string, unknown> }[];
  return `\`{ ${Object.keys(result?.properties ?? {}).join(", ")} }\``;
}

const scopeOf = (tool: Tool) =>
  (typeof tool.scope === "string" ? [tool.scope] : tool.scope).map((s) => `\`${s}\``).join(" or ");

/** The whole document, before formatting. */
export function mcpToolsDoc(): string {
  const tools = [...mcpTools().list].sort((a, b) => a.name.localeCompare(b.name));
  const rows = tools.map(
    (tool) =>
      `| \`${tool.name}\` | ${cell(tool.title)} | ${scopeOf(tool)} | ${tool.write ? "write" : "read"} | ${cell(argumentsOf(tool))} | ${cell(resultOf(tool))} |`,
  );
  const prompts = listPrompts().map(
    (prompt) =>
      `| \`${prompt.name}\` | ${cell(prompt.title ?? "")} | ${cell(prompt.description ?? "")} |`,
  );
  return [
    "# MCP tools",
    "",
    "<!-- Written by `npm run docs:mcp` from lib/api/mcp; do not edit by hand. -->",
    "",
    "The tools of the MCP server at `POST /api/mcp` ([api.md, MCP](api.md#mcp)), each an HTTP " +
      "route's twin. Arguments marked `?` are optional. Each tool's `inputSchema` and " +
      "`outputSchema` (its result, or `{ error, status, code? }` for a refusal) are in " +
      "`tools/list`. A write changes state; `read`-scoped writes only mark things read.",
    "",
    "| Tool | Title | Scope | Read/write | Arguments | Result |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    "## Prompts",
    "",
    "`prompts/get` answers each as one user message that walks through the tools by name.",
    "",
    "| Prompt | Title | Description |",
    "| --- | --- | --- |",
    ...prompts,
    "",
  ].join("\n");
}

/** What docs/mcp-tools.md should hold: the document, formatted by Prettier. */
export async function generatedMcpDoc(): Promise<string> {
  const file = path.join(process.cwd(), MCP_DOC);
  const options = await resolveConfig(file);
  return format(mcpToolsDoc(), { ...options, filepath: file });
}

async function main() {
  const file = path.join(process.cwd(), MCP_DOC);
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const next = await generatedMcpDoc();
  fs.writeFileSync(file, next);
  console.log(
    next === current
      ? `${MCP_DOC}: the tool table is current`
      : `wrote ${mcpTools().list.length} tools into ${MCP_DOC}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
