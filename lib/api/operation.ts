import "server-only";
import type { NextRequest } from "next/server";
import type { Address } from "viem";
import { z } from "zod";
import type { ZodOpenApiOperationObject } from "zod-openapi";
import type { Caller } from "@/lib/auth/caller";
import type { Db } from "@/lib/db";
import type { TokenScope } from "@/lib/shared/enums";
import type { ErrorCode } from "@/lib/shared/error-codes";
import type { JsonData } from "./envelope";

/**
 * One operation of the API, declared once: its method and path, who may call it, what it
 * reads and answers, what it costs (body limit, rate-limit class), the error codes it gives
 * and whether MCP exposes it. The route handlers (lib/api/serve.ts), the OpenAPI document
 * (lib/api/openapi/document.ts), the MCP tools (lib/api/mcp/tools.ts) and the body limits
 * the app server applies before Next (lib/shared/large-body-paths.ts, written from them) are all derived from these.
 */

/** Who may call: anyone, a SIWE session (and/or a token with one of `scope`), or a token. */
export type Auth =
  | { kind: "public" }
  | { kind: "session" }
  | { kind: "token" }
  | { kind: "sessionOrToken"; scope: TokenScope | readonly TokenScope[] };

export const PUBLIC: Auth = { kind: "public" };
export const SESSION_ONLY: Auth = { kind: "session" };
export const TOKEN_ONLY: Auth = { kind: "token" };
export const sessionOrToken = (scope: TokenScope | readonly TokenScope[]): Auth => ({
  kind: "sessionOrToken",
  scope,
});

/** A code, or a code at one of its statuses (`self_payment` is 403 on a bid, 409 on settle). */
export type DeclaredError = ErrorCode | readonly [ErrorCode, number];

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type RateClass = "read" | "write" | "auth";

/** What an operation answers: `{ data, meta? }` with a status and headers. */
export interface Answer {
  data: unknown;
  meta?: Record<string, unknown>;
  headers?: HeadersInit;
  /** `data` as JSON text, passed through as the HTTP answer's (jsonAnswer). */
  json?: JsonData;
}

export const answer = (data: unknown, meta?: Record<string, unknown>): Answer =>
  meta === undefined ? { data } : { data, meta };
/**
 * An answer whose data PostgreSQL wrote as JSON text (lib/kernel/job-rows.ts): HTTP passes the
 * text through (okJson); an MCP tool reads `data`, parsed when asked.
 */
export const jsonAnswer = (json: JsonData, meta?: Record<string, unknown>): Answer => ({
  json,
  get data(): unknown {
    return JSON.parse(json.json);
  },
  ...(meta === undefined ? {} : { meta }),
});

/** A cursor page: `{ data: items, meta: { nextCursor } }`. */
export const pageAnswer = (page: { items: unknown[]; nextCursor: string | null }): Answer => ({
  data: page.items,
  meta: { nextCursor: page.nextCursor },
});

export interface OperationContext<P, Q, B> {
  db: Db;
  /** The caller: set when `auth` is not public (and for MCP calls, always). */
  caller: Caller;
  wallet: Address;
  params: P;
  query: Q;
  body: B;
  /** The HTTP request; undefined for an MCP call (operations MCP exposes do without it). */
  req: NextRequest | undefined;
  /** Who asks, from where, until when: the HTTP request's, for an MCP call the MCP POST's. */
  from: RequestOrigin;
}

/** A request's client (its address subject, lib/platform/client-address.ts) and abort signal. */
export interface RequestOrigin {
  client: string;
  signal: AbortSignal;
}

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface OperationSpec<P extends Schema, Q extends Schema, B extends Schema> {
  /** The OpenAPI operationId, and the typed client's name for it. */
  id: string;
  method: Method;
  /** The OpenAPI path: `/api/v1/jobs/{id}` (Next's folder `[id]`). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  auth: Auth;
  params?: P;
  query?: Q;
  body?: B;
  /** The body is optional (the schema is still applied to an empty body). */
  bodyOptional?: boolean;
  /** Bodies past 1 MiB are read only for this operation (deliveries): `DELIVER_BODY_LIMIT`. */
  largeBody?: boolean;
  /** Which rate limit counts it (default: reads `read`, writes `write`). */
  rate?: RateClass | "none";
  /**
   * `false`: the request pipeline opens no database for it (`ctx.db` is unset), so that it
   * answers while the database is down: the health probes (with `rate: "none"`, which counts
   * nothing in a store either).
   */
  database?: false;
  /** The success: its status (200) and what its `{ data, meta? }` holds. */
  success: {
    status?: 200 | 201;
    description: string;
    /** `data`'s schema; with `page`, the schema of one item of the list. */
    data?: Schema;
    /** `data` is a cursor page's items, `meta.nextCursor` the next page's cursor. */
    page?: boolean;
    /** `meta`'s fields besides nextCursor (`unreadCount`, `hasMore`). */
    meta?: z.ZodObject;
    /** The whole body, when it is not our envelope (the OpenAPI document, JSON-RPC). */
    body?: Schema;
    /** A public read answered with an ETag and 304 on If-None-Match. */
    revalidate?: boolean;
  };
  /** The specific codes it can answer (the generic ones are added from auth, body, limits). */
  errors?: readonly DeclaredError[];
  /** MCP: the tool this operation also is. */
  mcp?: McpExposure;
  /** Checks that need no body, run before a large body is read (a stranger's upload). */
  beforeBody?(ctx: OperationContext<Out<P>, Out<Q>, undefined>): Promise<void>;
  handle(ctx: OperationContext<Out<P>, Out<Q>, Out<B>>): Promise<Answer | Response>;
  /** OpenAPI parts the derivation cannot say (headers of the x402 resource, a binary body). */
  openapi?: Partial<ZodOpenApiOperationObject>;
}

export type Success = OperationSpec<Schema, Schema, Schema>["success"];

/**
 * What a success answer holds, as schemas: `data` (a page's items as an array) and `meta`
 * (a page's nextCursor beside the declared fields). The OpenAPI document wraps them in the
 * envelope; an MCP tool's outputSchema puts them side by side (lib/api/mcp/schemas.ts).
 */
export function answerParts(success: Success): { data: z.ZodType; meta: z.ZodObject | undefined } {
  const data = success.page ? z.array(success.data!) : (success.data ?? z.unknown());
  const meta = success.page
    ? z.object({ nextCursor: z.string().nullable(), ...(success.meta?.shape ?? {}) })
    : success.meta;
  return { data, meta };
}

export interface McpExposure {
  name: string;
  title: string;
  /** Defaults to the operation's summary and description. */
  description?: string;
  /** The result's key for `data` (`{ job }`); none: `data`'s own fields are the result. */
  result?: string;
  /** Path parameters renamed for the tool (`id` → `jobId`). */
  rename?: Record<string, string>;
  /** The tool's arguments, when they are not the route's params, query and body merged. */
  input?: Schema;
  /** From those arguments to the route's params, query and body. */
  toRequest?(args: never): { params?: unknown; query?: unknown; body?: unknown };
  /** The scope a token needs for a public read (default `read`). */
  scope?: TokenScope | readonly TokenScope[];
  /**
   * For an operation whose route answers HTTP only (a file's bytes): the tool's own answer
   * from the same parsed request, and `success` as the tool answers it (its outputSchema).
   */
  answer?: {
    success: Pick<Success, "data" | "meta">;
    handle(ctx: OperationContext<never, never, never>): Promise<Answer>;
  };
}

export type Operation = OperationSpec<Schema, Schema, Schema>;

export function defineOperation<
  P extends Schema = z.ZodUndefined,
  Q extends Schema = z.ZodUndefined,
  B extends Schema = z.ZodUndefined,
>(spec: OperationSpec<P, Q, B>): Operation {
  return spec as unknown as Operation;
}

export const isWrite = (operation: Pick<Operation, "method">) => operation.method !== "GET";

/** The rate class an operation counts against (over HTTP and as an MCP tool), none: `undefined`. */
export function rateClassOf(operation: Pick<Operation, "rate" | "method">): RateClass | undefined {
  if (operation.rate === "none") return undefined;
  return operation.rate ?? (isWrite(operation) ? "write" : "read");
}
