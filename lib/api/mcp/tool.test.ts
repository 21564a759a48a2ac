// Which operations may be MCP tools, and what each tool counts against: a token's scope is
// what guards a tool, so only token-scoped operations and public reads can be one; a tool
// counts against its HTTP twin's rate class.
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
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

describe("a tool's JSON Schemas", () => {
  it("declare an outputSchema the SDK client compiles: the result, or a refusal", () => {
    const validator = new AjvJsonSchemaValidator();
    for (const tool of mcpTools().list) {
      expect(tool.outputSchema.type, tool.name).toBe("object");
      const check = validator.getValidator(tool.outputSchema as never);
      expect(check({ error: "no", status: 404, code: "job_not_found" }).valid, tool.name).toBe(
        true,
      );
      expect(check({ unexpected: true }).valid, tool.name).toBe(false);
    }
    const attachment = validator.getValidator(
      mcpTools().byName.get("get_attachment")!.outputSchema as never,
    );
    const file = { id: "att_1", name: "a.txt", size: 1, type: "text/plain", base64: "YQ==" };
    expect(attachment({ attachment: file }).valid).toBe(true);
    expect(attachment({ attachment: { ...file, base64: undefined } }).valid).toBe(false);
  });

  it("take a query's booleans and numbers as JSON, and read them as the URL's text", async () => {
    const tool = mcpTools().byName.get("list_notifications")!;
    expect(tool.inputSchema.properties).toMatchObject({
      unread: { type: "boolean" },
      limit: { type: "integer" },
    });
    const text = JSON.stringify(mcpTools().list.map((each) => each.inputSchema));
    expect(text).not.toContain('"enum":["true","false"]');
    expect(tool.operation.query!.parse({ unread: "true", limit: "3" })).toMatchObject({
      unread: true,
      limit: 3,
    });
  });
});
