import "server-only";
import { z } from "zod";
import type { Caller } from "@/lib/auth/caller";
import type { Db } from "@/lib/db";
import type { TokenScope } from "@/lib/shared/enums";

/**
 * One MCP tool: its name, the access-token scope it needs, and its input as the HTTP route
 * takes it: `params` where the route has path parameters (jobId, proposalId) and `input`
 * where it has a body or query, each the very zod schema the route parses. The tool's JSON
 * Schema is derived from those two (`inputJsonSchema`), and its arguments are parsed by them,
 * so a tool refuses exactly what the route refuses, with the same message.
 */

/** What a tool runs with: the database and the token's caller. */
export interface ToolContext {
  db: Db;
  caller: Caller;
  /** Counts a write against the caller's rate limit (429 beyond it), as the HTTP routes do. */
  limitWrite(): Promise<void>;
  /** Counts a read against the caller's read limit (429 beyond it), as the HTTP reads do. */
  limitRead(): Promise<void>;
  /** Bytes the whole answer to this HTTP request may still take (lib/mcp/limits.ts). */
  answerBudget: { remaining: number };
}

type ObjectSchema = z.ZodType<Record<string, unknown>>;

export interface ToolSpec<P extends ObjectSchema, I extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  /** A list: any one of them lets the token call it; the tool checks the caller's role's. */
  scope: TokenScope | readonly TokenScope[];
  /** A write: counted against the rate limit; reads are marked read-only for clients. */
  write: boolean;
  params?: P;
  input?: I;
  run(ctx: ToolContext, params: z.output<P>, input: z.output<I>): Promise<Record<string, unknown>>;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** A list: any one of them lets the token call it; the tool checks the caller's role's. */
  scope: TokenScope | readonly TokenScope[];
  write: boolean;
  params?: ObjectSchema;
  input?: z.ZodType;
  run(ctx: ToolContext, params: unknown, input: unknown): Promise<Record<string, unknown>>;
}

export function defineTool<
  P extends ObjectSchema = z.ZodObject<Record<string, never>>,
  I extends z.ZodType = z.ZodUndefined,
>(spec: ToolSpec<P, I>): Tool {
  return spec as unknown as Tool;
}

interface JsonObjectSchema {
  type: "object";
  properties: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
}

/**
 * The tool's JSON Schema: the properties and required fields of `params` and `input`, each
 * converted by zod's own `z.toJSONSchema` as the input a client sends (defaults optional).
 */
export function inputJsonSchema(tool: Pick<Tool, "params" | "input">): JsonObjectSchema {
  const parts = [tool.params, tool.input]
    .filter((schema): schema is z.ZodType => schema !== undefined)
    .map((schema) => z.toJSONSchema(schema, { io: "input" }) as Partial<JsonObjectSchema>);
  const properties = Object.assign({}, ...parts.map((part) => part.properties ?? {}));
  const required = parts.flatMap((part) => part.required ?? []);
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

/** Parses a call's arguments as the route parses its path and then its body. */
export function parseArguments(tool: Tool, args: Record<string, unknown>) {
  return {
    params: tool.params ? tool.params.parse(args) : {},
    input: tool.input ? tool.input.parse(args) : undefined,
  };
}
