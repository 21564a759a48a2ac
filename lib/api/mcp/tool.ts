import "server-only";
import { z } from "zod";
import type { Caller } from "@/lib/auth/caller";
import type { Db } from "@/lib/db";
import type { TokenScope } from "@/lib/shared/enums";
import { inputSchemaOf, type JsonObjectSchema, outputSchemaOf } from "./schemas";
import {
  type Answer,
  isWrite,
  type Operation,
  type RateClass,
  rateClassOf,
  type RequestOrigin,
} from "../operation";

/**
 * An MCP tool, derived from the operation it exposes (lib/api/operation.ts): its arguments are
 * the route's path parameters, query and body side by side (or the operation's own `mcp.input`),
 * parsed by the very zod schemas the route parses, so a tool refuses exactly what the route
 * refuses, with the same message; it runs the same handler (or, for a route that answers a
 * file, the tool's own answer from the same lib/ function) and answers `{ <result>: data,
 * ...meta }`, as its outputSchema says (lib/api/mcp/schemas.ts).
 */

/** What a tool runs with: the database and the token's caller. */
export interface ToolContext {
  db: Db;
  caller: Caller;
  /** Counts a write against the caller's rate limit (429 beyond it), as the HTTP routes do. */
  limitWrite(): Promise<void>;
  /** Counts a read against the caller's read limit (429 beyond it), as the HTTP reads do. */
  limitRead(): Promise<void>;
  /** Bytes the whole answer to this HTTP request may still take (lib/api/mcp/limits.ts). */
  answerBudget: { remaining: number };
  /** The MCP POST's client and abort signal (a tool's long-poll waits on them). */
  from: RequestOrigin;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** A list: any one of them lets the token call it; the handler checks the caller's role's. */
  scope: TokenScope | readonly TokenScope[];
  write: boolean;
  /** The rate limit it counts against, its HTTP twin's (`rateClassOf`); none: not counted. */
  rate: RateClass | undefined;
  operation: Operation;
  inputSchema: JsonObjectSchema;
  outputSchema: JsonObjectSchema;
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export function toolOf(operation: Operation): Tool {
  const mcp = operation.mcp!;
  // A token's scope is what guards a tool: an operation for sessions only (tokens) or a public
  // write (settle, payee consent) has no scope that could, so it cannot be a tool.
  const guarded =
    operation.auth.kind === "sessionOrToken" ||
    (operation.auth.kind === "public" && !isWrite(operation));
  if (!guarded) {
    throw new Error(`${operation.id}: only token-scoped operations and public reads are MCP tools`);
  }
  const scope =
    operation.auth.kind === "sessionOrToken" ? operation.auth.scope : (mcp.scope ?? "read");
  const scopes = typeof scope === "string" ? scope : scope.join(" or ");
  const about =
    mcp.description ?? [operation.summary, operation.description].filter(Boolean).join(". ");
  return {
    name: mcp.name,
    title: mcp.title,
    description: `${about}. Scope: ${scopes}.`.replace(/\.\. Scope/, ". Scope"),
    scope,
    write: isWrite(operation),
    rate: rateClassOf(operation),
    operation,
    inputSchema: inputSchemaOf(operation),
    outputSchema: outputSchemaOf(operation),
    async run(ctx, args) {
      const request = toRequest(operation, args);
      const handlerCtx = {
        db: ctx.db,
        caller: ctx.caller,
        wallet: ctx.caller.wallet,
        req: undefined,
        from: ctx.from,
        params: operation.params ? operation.params.parse(request.params ?? {}) : undefined,
        query: operation.query ? operation.query.parse(asQuery(request.query ?? {})) : undefined,
        body: undefined as unknown,
      };
      if (operation.beforeBody) await operation.beforeBody(handlerCtx as never);
      if (operation.body) handlerCtx.body = operation.body.parse(request.body);
      const result = await (mcp.answer ?? operation).handle(handlerCtx as never);
      if (result instanceof Response) {
        throw new Error(`${operation.id} answers HTTP only; it cannot be an MCP tool`);
      }
      return resultOf(result, mcp.result);
    },
  };
}

/** `{ <key>: data, ...meta }`, or without a key `data`'s own fields beside `meta`. */
function resultOf(answer: Answer, key: string | undefined): Record<string, unknown> {
  const data = key ? { [key]: answer.data } : (answer.data as Record<string, unknown>);
  return { ...data, ...answer.meta };
}

/** The call's arguments as the route would receive them: path, query and body. */
function toRequest(operation: Operation, args: Record<string, unknown>) {
  const mcp = operation.mcp!;
  if (mcp.input) {
    const parsed = mcp.input.parse(args);
    return mcp.toRequest ? mcp.toRequest(parsed as never) : { body: parsed };
  }
  const rename = mcp.rename ?? {};
  const shape = shapeOf(operation.params);
  const toolKey = (key: string) => rename[key] ?? key;
  // The path parameters under the tool's names, so that a refusal names the argument sent.
  const named = z
    .object(Object.fromEntries(Object.entries(shape).map(([key, value]) => [toolKey(key), value])))
    .parse(Object.fromEntries(Object.keys(shape).map((key) => [toolKey(key), args[toolKey(key)]])));
  const params = Object.fromEntries(Object.keys(shape).map((key) => [key, named[toolKey(key)]]));
  const rest = Object.fromEntries(
    Object.entries(args).filter(([key]) => !Object.keys(shape).some((p) => toolKey(p) === key)),
  );
  return { params, query: rest, body: rest };
}

/**
 * A query's values as a URL carries them: JSON numbers and booleans written as text, so that
 * `{ "unread": true, "limit": 10 }` reads as `?unread=true&limit=10` does.
 */
function asQuery(args: unknown): Record<string, unknown> {
  if (typeof args !== "object" || args === null) return {};
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => [
      key,
      typeof value === "number" || typeof value === "boolean" ? String(value) : value,
    ]),
  );
}

function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  return schema instanceof z.ZodObject ? schema.shape : {};
}
