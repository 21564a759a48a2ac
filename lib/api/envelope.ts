import "server-only";
import { hash } from "node:crypto";
import { toPublicError } from "@/lib/platform/errors";
import type { ErrorCode } from "@/lib/shared/error-codes";

// The answer's envelope: `{ data, meta? }` or `{ error, code }`, JSON, never cached unless a
// public read asks for revalidation (ETag, 304).

const NO_STORE = { "Cache-Control": "no-store" } as const;

export interface OkInit {
  status?: number;
  meta?: unknown;
  headers?: HeadersInit;
  /**
   * A public read: answered with an ETag and `Cache-Control: public, max-age=0,
   * must-revalidate`, and `304 Not Modified` (no body) when the request's If-None-Match
   * names that ETag.
   */
  revalidate?: Request;
}

export function ok(data: unknown, init: OkInit = {}) {
  const body = init.meta === undefined ? { data } : { data, meta: init.meta };
  if (init.revalidate) {
    return revalidatedResponse(init.revalidate, data, init.meta, () =>
      JSON.stringify(body, jsonReplacer),
    );
  }
  return jsonResponse(body, init.status ?? 200, init.headers);
}

/** `data` already written as JSON text (by PostgreSQL: lib/kernel/job-rows.ts). */
export interface JsonData {
  json: string;
}

/**
 * ok() for data given as JSON text: the envelope is written around the text, which is never
 * parsed. The same bytes as ok() with the parsed data (JSON.stringify writes `{"data":…}`
 * and `"meta"` compact, in that order).
 */
export function okJson(data: JsonData, init: OkInit = {}) {
  const meta = init.meta === undefined ? "" : `,"meta":${JSON.stringify(init.meta, jsonReplacer)}`;
  const write = () => `{"data":${data.json}${meta}}`;
  if (init.revalidate) return revalidatedResponse(init.revalidate, data, init.meta, write);
  const response = new Response(write(), {
    status: init.status ?? 200,
    headers: { "Content-Type": "application/json; charset=utf-8", ...NO_STORE },
  });
  for (const [key, value] of new Headers(init.headers)) response.headers.set(key, value);
  return response;
}

export const created = (data: unknown) => ok(data, { status: 201 });

/** The one error body: `{ error, code }` (a readable message, a stable snake_case code). */
export function errorResponse(
  status: number,
  message: string,
  headers: HeadersInit,
  code: ErrorCode,
) {
  return jsonResponse({ error: message, code }, status, headers);
}

function jsonResponse(body: unknown, status: number, headers: HeadersInit = {}) {
  const response = new Response(JSON.stringify(body, jsonReplacer), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...NO_STORE },
  });
  for (const [key, value] of new Headers(headers)) response.headers.set(key, value);
  return response;
}

const REVALIDATE = { "Cache-Control": "public, max-age=0, must-revalidate" } as const;

/**
 * The serialized answer and its ETag, kept per `data` object: answers served from the read
 * cache (lib/marketplace/read-cache.ts) are the same objects, serialized and hashed once.
 */
const serialized = new WeakMap<object, { meta: string; json: string; etag: string }>();

function revalidatedResponse(
  req: Request,
  data: unknown,
  metaValue: unknown,
  write: () => string,
): Response {
  const meta = JSON.stringify(metaValue ?? null, jsonReplacer);
  let known = typeof data === "object" && data !== null ? serialized.get(data) : undefined;
  if (!known || known.meta !== meta) {
    const json = write();
    // The one-shot hash: a third of createHash().update()'s time on a 37 KB page (2026-11-27).
    const etag = `"${hash("sha256", json, "base64url").slice(0, 32)}"`;
    known = { meta, json, etag };
    if (typeof data === "object" && data !== null) serialized.set(data, known);
  }
  const headers = { ETag: known.etag, ...REVALIDATE };
  if (noneMatch(req.headers.get("if-none-match"), known.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(known.json, {
    status: 200,
    headers: { "Content-Type": "application/json; charset=utf-8", ...headers },
  });
}

/** If-None-Match (RFC 9110 13.1.2): `*` or a list of ETags, compared weakly. */
function noneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

function jsonReplacer(_key: string, value: unknown) {
  return typeof value === "bigint" ? value.toString() : value;
}

/** Maps anything thrown to the one error shape; unexpected errors are logged, never shown. */
export function toErrorResponse(error: unknown): Response {
  const failure = toPublicError(error, "API route");
  return errorResponse(failure.status, failure.message, failure.headers, failure.code);
}

/** Answers 405 (JSON) for the methods a route does not implement. */
export function otherMethods(allowed: string) {
  const handler = async () =>
    errorResponse(
      405,
      `method not allowed; this path accepts ${allowed}`,
      { Allow: allowed },
      "method_not_allowed",
    );
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}

/** Serves a list page as `{ data, meta: { nextCursor } }`. */
export const okPage = (
  page: { items: unknown[]; nextCursor: string | null },
  init: Omit<OkInit, "meta"> = {},
) => ok(page.items, { ...init, meta: { nextCursor: page.nextCursor } });
