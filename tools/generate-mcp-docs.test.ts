// docs/mcp-tools.md is what `npm run docs:mcp` writes from the MCP tools (lib/api/mcp),
// formatted by Prettier: a tool added, renamed or given other arguments without regenerating,
// or the file edited by hand, fails here.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { mcpTools } from "@/lib/api/mcp/tools";
import { generatedMcpDoc, MCP_DOC } from "./generate-mcp-docs";

const current = () => fs.readFileSync(MCP_DOC, "utf8");

describe("docs/mcp-tools.md", () => {
  it("is what npm run docs:mcp writes (run it after changing an operation's MCP exposure)", async () => {
    expect(current()).toBe(await generatedMcpDoc());
  });

  it("has a row for every tool, with its scope, read or write, and arguments", () => {
    const rows = current()
      .split("\n")
      .filter((line) => /^\| `[a-z_]+` +\|/.test(line));
    const tools = mcpTools();
    expect(rows.map((row) => /^\| `([a-z_]+)`/.exec(row)![1]).slice(0, tools.list.length)).toEqual(
      tools.list.map((tool) => tool.name).sort(),
    );
    const attachment = rows.find((row) => row.startsWith("| `get_attachment`"))!;
    expect(attachment).toMatch(
      /\| `read` +\| read +\| `jobId`: string, `attachmentId`: string +\|/,
    );
    const notifications = rows.find((row) => row.startsWith("| `list_notifications`"))!;
    expect(notifications).toContain("`unread?`: boolean, `limit?`: integer");
  });
});
