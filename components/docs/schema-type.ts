// A JSON Schema (as the OpenAPI document holds it) written as a short TypeScript-like type, for
// people reading the API reference: `{ id: string; status: "open" | "in_progress"; … }`.
// Named schemas ($ref) are shown by name and linked once, not expanded again.

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
  description?: string;
  nullable?: boolean;
}

/** "#/components/schemas/Job" → "Job". */
export const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);

/**
 * The schema as a type. `indent` is the current nesting; objects deeper than `maxDepth` show
 * as `{ … }`.
 */
export function schemaType(schema: JsonSchema | undefined, indent = 0, maxDepth = 3): string {
  if (!schema) return "unknown";
  if (schema.$ref) return refName(schema.$ref);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((part) => schemaType(part, indent, maxDepth)).join(" | ");
  if (schema.allOf)
    return schema.allOf.map((part) => schemaType(part, indent, maxDepth)).join(" & ");
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) {
    return types.map((type) => schemaType({ ...schema, type }, indent, maxDepth)).join(" | ");
  }
  switch (types[0]) {
    case "array":
      return `${wrap(schemaType(schema.items, indent, maxDepth))}[]`;
    case "object":
      return objectType(schema, indent, maxDepth);
    case "integer":
      return "integer";
    case undefined:
      return schema.properties ? objectType(schema, indent, maxDepth) : "unknown";
    default:
      return types[0];
  }
}

function objectType(schema: JsonSchema, indent: number, maxDepth: number): string {
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length === 0) {
    return typeof schema.additionalProperties === "object"
      ? `Record<string, ${schemaType(schema.additionalProperties, indent, maxDepth)}>`
      : "{}";
  }
  if (indent >= maxDepth) return "{ … }";
  const pad = "  ".repeat(indent + 1);
  const required = new Set(schema.required ?? []);
  const lines = entries.map(
    ([name, value]) =>
      `${pad}${name}${required.has(name) ? "" : "?"}: ${schemaType(value, indent + 1, maxDepth)};`,
  );
  return `{\n${lines.join("\n")}\n${"  ".repeat(indent)}}`;
}

const wrap = (type: string) => (type.includes("|") || type.includes("&") ? `(${type})` : type);
