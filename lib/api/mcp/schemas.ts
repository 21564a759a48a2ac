import "server-only";
import { z } from "zod";
import { answerParts, type Operation } from "../operation";

/**
 * A tool's JSON Schemas, derived from its operation's zod schemas by zod's own
 * `z.toJSONSchema`: the input from the route's path, query and body (or the tool's own input),
 * the output from what the route answers (`success`), as the tool answers it.
 */

export interface JsonObjectSchema {
  type: "object";
  properties?: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
}

/**
 * The tool's input: its own, or the properties and required fields of the path (renamed),
 * query and body side by side, as the input a client sends (defaults optional). A query's
 * text-coded booleans are JSON booleans here (numbers already are: `z.coerce.number()` reads
 * as a number), which the tool writes back as text before the query's schema parses them.
 */
export function inputSchemaOf(operation: Operation): JsonObjectSchema {
  const mcp = operation.mcp!;
  if (mcp.input) return objectPart(mcp.input);
  const rename = mcp.rename ?? {};
  const parts = [
    operation.params && objectPart(operation.params),
    operation.query && objectPart(operation.query, { query: true }),
    operation.body && objectPart(operation.body),
  ].filter((part) => part !== undefined);
  const renamed = (key: string) => rename[key] ?? key;
  const properties = Object.assign(
    {},
    ...parts.map((part) =>
      Object.fromEntries(Object.entries(part.properties ?? {}).map(([k, v]) => [renamed(k), v])),
    ),
  );
  const required = [...new Set(parts.flatMap((part) => (part.required ?? []).map(renamed)))];
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

/** The shape of a refused call's `structuredContent` (lib/api/mcp/server.ts). */
export const toolErrorSchema = z.object({
  error: z.string(),
  status: z.int(),
  code: z.string().optional(),
});

/**
 * The tool's outputSchema: its result (`{ <result>: data, ...meta }`, or `data`'s own fields
 * beside `meta`) or, for a refusal, `{ error, status, code? }`; both are `structuredContent`,
 * which MCP clients check against this schema.
 */
export function outputSchemaOf(operation: Operation): JsonObjectSchema {
  const mcp = operation.mcp!;
  const success = mcp.answer?.success ?? operation.success;
  if (!success.data) throw new Error(`${operation.id}: an MCP tool needs success.data's schema`);
  const { data, meta } = answerParts({ ...operation.success, ...success });
  const metaShape = meta?.shape ?? {};
  let result: z.ZodObject;
  if (mcp.result) result = z.object({ [mcp.result]: data, ...metaShape });
  else if (data instanceof z.ZodObject) result = data.extend(metaShape);
  else throw new Error(`${operation.id}: an MCP tool without \`result\` needs an object's data`);
  // Without `$schema` (MCP's default dialect is 2020-12 anyway): a client's Ajv set up for
  // draft-07 that checks schemas refuses a dialect it was not given; `$defs` refs resolve in both.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(z.union([result, toolErrorSchema]), {
    io: "output",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return { ...schema, type: "object" };
}

/** An object schema's properties and required fields (an optional object's object part). */
function objectPart(schema: z.ZodType, { query = false } = {}): JsonObjectSchema {
  const json = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    ...(query ? { override: textBooleansAsBooleans } : {}),
  }) as Partial<JsonObjectSchema & { anyOf: JsonObjectSchema[] }>;
  // An optional body (`schema.optional()`) is `anyOf: [object, null-ish]`: take the object.
  const object = json.properties ? json : json.anyOf?.find((part) => part.properties);
  return {
    type: "object",
    properties: object?.properties ?? {},
    ...(object?.required ? { required: object.required } : {}),
  };
}

const TEXT_BOOLEAN = ["false", "true"];

/** `"true" | "false"` in a URL's query is a JSON boolean in a tool's arguments. */
function textBooleansAsBooleans({ jsonSchema }: { jsonSchema: Record<string, unknown> }) {
  const values = jsonSchema.enum;
  if (!Array.isArray(values) || [...values].sort().join() !== TEXT_BOOLEAN.join()) return;
  delete jsonSchema.enum;
  jsonSchema.type = "boolean";
  if (typeof jsonSchema.default === "string") jsonSchema.default = jsonSchema.default === "true";
}
