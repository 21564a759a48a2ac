// Which operations may be MCP tools, and what each tool counts against: a token's scope is
// what guards a tool, so only token-scoped operations and public reads can be one; a tool
// counts against its HTTP twin's rate class.
import { describe, expect, it } from "vitest";
import { allOperations } from "../operations";
import { createTokenOperation } from "../operations/programs";
import { defineOperation, PUBLIC, rateClassOf } from "../operation";
import { toolOf } from "./tool";
import { mcpTools } from "./tools";

const asTool = { name: "x", title: "X" };

describe("toolOf", () => {
  it("refuses an operation for sessions only, and a public write", () => {
    expect(() => toolOf({ ...createTokenOperation, mcp: asTool })).toThrow(
      /only token-scoped operations and public reads/,
    );
    const publicWrite = defineOperation({
      id: "publicWrite",
      method: "POST",
      path: "/api/v1/public-write",
      tag: "Meta",
      summary: "A public write",
      auth: PUBLIC,
      success: { description: "ok" },
      mcp: asTool,
      handle: async () => ({ data: null }),
    });
    expect(() => toolOf(publicWrite)).toThrow(/only token-scoped operations and public reads/);
  });

  it("gives every tool its HTTP twin's rate class", () => {
    const { list } = mcpTools();
    expect(list.length).toBeGreaterThan(20);
    for (const tool of list) expect(tool.rate, tool.name).toBe(rateClassOf(tool.operation));
    const twins = new Set(list.map((tool) => tool.operation));
    expect(allOperations().filter((operation) => operation.mcp && !twins.has(operation))).toEqual(
      [],
    );
  });
});
