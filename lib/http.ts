import type { NextRequest } from "next/server";
import type { Address } from "viem";
import { ZodError, type ZodType } from "zod";
import { currentWallet } from "@/lib/auth/session";
import { getConfig } from "@/lib/config";
import { DomainError, isUniqueViolation, unauthenticated } from "@/lib/errors";
import { checkRateLimit, getRateLimitStore } from "@/lib/rate-limit";
import { describeIssues } from "@/lib/validation";

/**
 * The only module that knows HTTP: the `{ data }` / `{ error }` envelope, error kinds to
 * statuses, body limits, the Origin check and the rate-limit hook. Route handlers are
 * `route(options, async (ctx) => ok(await someLibFunction(...)))`.
 */

export const JSON_BODY_LIMIT = 1024 * 1024;
export const DELIVER_BODY_LIMIT = 12 * 1024 * 1024;

const NO_STORE = { "Cache-Control": "no-store" } as const;

export function ok(
  data: unknown,
  init: { status?: number; meta?: unknown; headers?: HeadersInit } = {},
) {
  const body = init.meta === undefined ? { data } : { data, meta: init.meta };
  return jsonResponse(body, init.status ?? 200, init.headers);
}

export const created = (data: unknown) => ok(data, { status: 201 });

export function errorResponse(status: number, message: string, headers: HeadersInit = {}) {
  return jsonResponse({ error: message }, status, headers);
}

function jsonResponse(body: unknown, status: number, headers: HeadersInit = {}) {
  const response = new Response(JSON.stringify(body, jsonReplacer), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...NO_STORE },
  });
  for (const [key, value] of new Headers(headers)) response.headers.set(key, value);
  return response;
}

function jsonReplacer(_key: string, value: unknown) {
  return typeof value === "bigint" ? value.toString() : value;
}

/** Maps anything thrown to the one error shape; unexpected errors are logged, never shown. */
export function toErrorResponse(error: unknown): Response {
  if (error instanceof DomainError)
    return errorResponse(error.status, error.message, error.headers);
  if (error instanceof ZodError) return errorResponse(400, describeIssues(error));
  if (isUniqueViolation(error))
    return errorResponse(409, "this already exists (conflicting request)");
  console.error("Unhandled error in API route:", error);
  return errorResponse(500, "internal server error");
}

export interface RouteContext<P> {
  req: NextRequest;
  params: P;
  /** The signed-in wallet; only set when the route was declared with `auth: true`. */
  wallet: Address;
  /** Reads the JSON body within the route's size limit and validates it. */
  body<T>(schema: ZodType<T>): Promise<T>;
  query<T>(schema: ZodType<T>): T;
}

export interface RouteOptions {
  /** Require a SIWE session (401 without one). */
  auth?: boolean;
  /** Which rate-limit bucket this write counts against. */
  rateLimit?: "write" | "auth";
  /** Body size limit in bytes (default 1 MiB). */
  bodyLimit?: number;
}

type NextParams<P> = { params: Promise<P> };

export function route<P = Record<string, never>>(
  options: RouteOptions,
  handler: (ctx: RouteContext<P>) => Promise<Response>,
) {
  return async (req: NextRequest, next: NextParams<P>): Promise<Response> => {
    try {
      const isWrite = req.method !== "GET" && req.method !== "HEAD";
      if (isWrite) assertSameOrigin(req);

      let wallet: Address | undefined;
      if (options.auth) {
        wallet = await currentWallet();
        if (!wallet) throw unauthenticated("sign in with your wallet first (no valid session)");
      }
      if (options.rateLimit) await enforceRateLimit(req, options.rateLimit, wallet);

      const limit = options.bodyLimit ?? JSON_BODY_LIMIT;
      // Also for handlers that read no body (reject, logout): a declared oversize is 413.
      if (Number(req.headers.get("content-length") ?? "0") > limit) throw tooLarge(limit);
      const ctx: RouteContext<P> = {
        req,
        params: (await next.params) ?? ({} as P),
        wallet: wallet as Address,
        body: async (schema) => schema.parse(await readJson(req, limit)),
        query: (schema) => schema.parse(Object.fromEntries(req.nextUrl.searchParams)),
      };
      return await handler(ctx);
    } catch (error) {
      return toErrorResponse(error);
    }
  };
}

/**
 * Reads at most `limit` bytes: a larger declared length is refused before reading, a larger
 * stream is cut off as soon as it passes the limit. An empty body reads as `undefined`.
 */
export async function readJson(req: Request, limit: number): Promise<unknown> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel();
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError("invalid", "the request body is not valid JSON");
  }
}

function tooLarge(limit: number) {
  return new DomainError("too_large", `the request body is larger than ${formatBytes(limit)}`);
}

function formatBytes(bytes: number) {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/** Browsers send Origin on cross-site writes; ours must match. Clients without Origin pass. */
function assertSameOrigin(req: NextRequest) {
  const origin = req.headers.get("origin");
  if (!origin) return;
  if (allowedOrigins(req).has(origin)) return;
  throw new DomainError("forbidden", `requests from origin ${origin} are not allowed`);
}

export function requestHost(req: Request): string | undefined {
  const { TRUST_PROXY } = getConfig();
  const forwarded = TRUST_PROXY === "true" ? req.headers.get("x-forwarded-host") : null;
  return (forwarded ?? req.headers.get("host") ?? undefined)?.split(",")[0]?.trim();
}

function allowedOrigins(req: NextRequest): Set<string> {
  const origins = new Set<string>();
  const { APP_URL } = getConfig();
  if (APP_URL) origins.add(new URL(APP_URL).origin);
  const host = requestHost(req);
  if (host) {
    origins.add(`http://${host}`);
    origins.add(`https://${host}`);
  }
  return origins;
}

/** The URL the client used (APP_URL's origin when set): Next's nextUrl reports its own host. */
export function publicUrl(req: NextRequest): string {
  const { APP_URL, TRUST_PROXY } = getConfig();
  const proto =
    (TRUST_PROXY === "true"
      ? req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim()
      : undefined) ?? req.nextUrl.protocol.replace(":", "");
  const origin = APP_URL
    ? new URL(APP_URL).origin
    : `${proto}://${requestHost(req) ?? req.nextUrl.host}`;
  return `${origin}${req.nextUrl.pathname}${req.nextUrl.search}`;
}

/** Hosts a SIWE message's `domain` may name. */
export function allowedSiweDomains(req: Request): string[] {
  const domains = new Set<string>();
  const { APP_URL } = getConfig();
  if (APP_URL) domains.add(new URL(APP_URL).host);
  const host = requestHost(req);
  if (host) domains.add(host);
  return [...domains];
}

function clientIp(req: NextRequest): string {
  // Next.js sets x-forwarded-for from the socket when no proxy did; behind a proxy the
  // proxy's value is only trusted when TRUST_PROXY is set.
  const header = req.headers.get("x-forwarded-for") ?? "";
  const parts = header
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const ip = getConfig().TRUST_PROXY === "true" ? parts[0] : parts.at(-1);
  return ip ?? "unknown";
}

async function enforceRateLimit(req: NextRequest, bucket: "write" | "auth", wallet?: Address) {
  const config = getConfig();
  const limit =
    bucket === "auth" ? config.RATE_LIMIT_AUTH_PER_MINUTE : config.RATE_LIMIT_WRITES_PER_MINUTE;
  const keys = [`${bucket}:ip:${clientIp(req)}`];
  if (wallet) keys.push(`${bucket}:wallet:${wallet}`);
  const decision = await checkRateLimit(getRateLimitStore(), keys, limit);
  if (!decision.allowed) {
    throw new DomainError("rate_limited", "too many requests; slow down and retry later", {
      "Retry-After": String(decision.retryAfterSeconds),
    });
  }
}

/** Answers 405 (JSON) for the methods a route does not implement. */
export function otherMethods(allowed: string) {
  const handler = async () =>
    errorResponse(405, `method not allowed; this path accepts ${allowed}`, { Allow: allowed });
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}

/** Serves a list page as `{ data, meta: { nextCursor } }`. */
export const okPage = (page: { items: unknown[]; nextCursor: string | null }) =>
  ok(page.items, { meta: { nextCursor: page.nextCursor } });
