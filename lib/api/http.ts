import "server-only";
import { createHash } from "node:crypto";
import type { NextRequest } from "next/server";
import type { Address } from "viem";
import type { ZodType } from "zod";
import { type Caller, hasBearer, requireWallet } from "@/lib/auth/caller";
import { bodyLimitFor, JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import { formatBytes } from "@/lib/shared/format";
import { addressSubject, requestClientAddress } from "@/lib/platform/client-address";
import { getConfig, siteOrigins } from "@/lib/platform/config";
import { DomainError, toPublicError } from "@/lib/platform/errors";
import { slotPool } from "@/lib/platform/client-slots";
import { checkRateLimit, getRateLimitStore, getReadLimiter } from "./rate-limit";
import { withServerTiming } from "@/lib/platform/server-timing";
import type { TokenScope } from "@/lib/shared/enums";

/**
 * The only module that knows HTTP: the `{ data }` / `{ error }` envelope, error kinds to
 * statuses, body limits, the Origin check and the rate-limit hook. Route handlers are
 * `route(options, async (ctx) => ok(await someLibFunction(...)))`.
 *
 * Order for every request: Origin (cookie writes) → caller, a session cookie or a bearer
 * access token and its scope (401/403 before a byte of the body is read) → rate limit → the
 * handler, which reads the body within the path's limit. The app server
 * (server/app-server.ts) has already refused a declared oversize body with 413.
 */

export { DELIVER_BODY_LIMIT, JSON_BODY_LIMIT } from "@/lib/shared/body-limits";

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
  if (init.revalidate) return revalidatedResponse(init.revalidate, data, body);
  return jsonResponse(body, init.status ?? 200, init.headers);
}

export const created = (data: unknown) => ok(data, { status: 201 });

/** The one error body: `{ error, code }` (a readable message, a stable snake_case code). */
export function errorResponse(status: number, message: string, headers: HeadersInit, code: string) {
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

function revalidatedResponse(req: Request, data: unknown, body: object): Response {
  const meta = JSON.stringify((body as { meta?: unknown }).meta ?? null);
  let known = typeof data === "object" && data !== null ? serialized.get(data) : undefined;
  if (!known || known.meta !== meta) {
    const json = JSON.stringify(body, jsonReplacer);
    const etag = `"${createHash("sha256").update(json).digest("base64url").slice(0, 32)}"`;
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

export interface RouteContext<P> {
  req: NextRequest;
  params: P;
  /** The calling wallet; only set when the route was declared with `auth`. */
  wallet: Address;
  /** How it called (session cookie or access token, with the token's scopes); with `auth`. */
  caller: Caller;
  /** Reads the JSON body within the route's size limit and validates it. */
  body<T>(schema: ZodType<T>): Promise<T>;
  /** The JSON body within the route's size limit, unvalidated, with its size in bytes. */
  json(): Promise<{ value: unknown; bytes: number }>;
  query<T>(schema: ZodType<T>): T;
}

export interface RouteOptions {
  /**
   * Require a caller (401 without one). `true`: a SIWE session cookie, or a bearer access
   * token carrying `scope` (no `scope`: sessions only, tokens get 403). `"token"`: a bearer
   * token only, whatever its scopes (the handler checks them per action: the MCP server).
   */
  auth?: true | "token";
  /**
   * The access-token scope this route needs (README: Access tokens, the scope table). A list:
   * any one of them lets the token in, and the handler checks which one the caller's role
   * needs (posting a message: `post` for the poster, `bid` for the agent's side).
   */
  scope?: TokenScope | readonly TokenScope[];
  /**
   * Which rate-limit bucket the request counts against. Reads (GET) count as `read` unless
   * they name another; a write names its own.
   */
  rateLimit?: RateLimitBucket;
}

export type RateLimitBucket = "read" | "write" | "auth";

type NextParams<P> = { params: Promise<P> };

export function route<P = Record<string, never>>(
  options: RouteOptions,
  handler: (ctx: RouteContext<P>) => Promise<Response>,
) {
  const handle = async (req: NextRequest, next: NextParams<P>): Promise<Response> => {
    try {
      const isWrite = req.method !== "GET" && req.method !== "HEAD";
      // A browser never attaches a bearer token by itself, so a write it authenticates cannot
      // be forged cross-site: these checks guard what a cookie authenticates (or sets).
      if (isWrite && !(options.auth && hasBearer(req))) assertBrowserWrite(req);

      const caller = options.auth
        ? await requireWallet(
            req,
            options.auth === "token"
              ? { token: "any", cookie: false }
              : { token: options.scope ?? null },
          )
        : undefined;
      const wallet = caller?.wallet;
      const bucket = options.rateLimit ?? (isWrite ? undefined : "read");
      if (bucket) await enforceRateLimit(req, bucket, wallet);

      const limit = bodyLimitFor(req.nextUrl.pathname);
      // Also for handlers that read no body (reject, logout): a declared oversize is 413.
      if (Number(req.headers.get("content-length") ?? "0") > limit) throw tooLarge(limit);
      const ctx: RouteContext<P> = {
        req,
        params: (await next.params) ?? ({} as P),
        wallet: wallet as Address,
        caller: caller as Caller,
        body: async (schema) => schema.parse(await readJson(req, limit, wallet)),
        json: async () => {
          const bytes = await readBody(req, limit, wallet);
          return { value: parseJson(bytes), bytes: bytes.byteLength };
        },
        query: (schema) => schema.parse(Object.fromEntries(req.nextUrl.searchParams)),
      };
      return await handler(ctx);
    } catch (error) {
      return toErrorResponse(error);
    }
  };
  return (req: NextRequest, next: NextParams<P>): Promise<Response> =>
    getConfig().BENCHMARK_MODE === "true"
      ? withServerTiming(() => handle(req, next))
      : handle(req, next);
}

/**
 * Reads at most `limit` bytes: a larger declared length is refused before reading, a larger
 * stream is cut off as soon as it passes the limit. A body the client broke off (or the app
 * server cut off after its request timeout) is a 400, not a crash.
 *
 * A body longer than the JSON limit (a delivery's files) reads its remainder only while it
 * holds a slot of the process's upload pool: the slot is taken when the bytes that arrive pass
 * the JSON limit (a declared Content-Length takes nothing), the pool holds UPLOAD_SLOTS at once
 * and UPLOAD_SLOTS_PER_CLIENT per client (its address and its wallet: 429 beyond), others wait
 * their turn with their uploads held back by TCP, and a sender whose last few seconds arrived
 * slower than UPLOAD_MIN_BYTES_PER_SECOND loses its slot (408), so that a trickle cannot hold
 * one until the request timeout.
 */
export async function readBody(req: Request, limit: number, wallet?: Address): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let slot: { release(): void; floor: RateFloor } | undefined;
  try {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch {
        step = { done: true, value: undefined };
        if (!slot?.floor.tripped) {
          throw new DomainError("invalid", "the request body was cut off before its end");
        }
      }
      if (slot?.floor.tripped) throw tooSlow(slot.floor.minBytesPerSecond);
      if (step.done) break;
      total += step.value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(limit);
      }
      chunks.push(step.value);
      if (slot) slot.floor.add(step.value.byteLength);
      else if (total > JSON_BODY_LIMIT) slot = await takeUploadSlot(req, wallet, reader);
    }
  } finally {
    slot?.floor.stop();
    slot?.release();
  }
  return Buffer.concat(chunks);
}

async function takeUploadSlot(
  req: Request,
  wallet: Address | undefined,
  reader: ReadableStreamDefaultReader<Uint8Array>,
) {
  const keys = [`ip:${addressSubject(requestClientAddress(req))}`];
  if (wallet) keys.push(`wallet:${wallet}`);
  const release = await uploadSlots().acquire(keys);
  const floor = new RateFloor(getConfig().UPLOAD_MIN_BYTES_PER_SECOND, () => {
    void reader.cancel().catch(() => undefined);
  });
  return { release, floor };
}

function uploadSlots() {
  return slotPool("uploads", () => {
    const config = getConfig();
    return {
      slots: config.UPLOAD_SLOTS,
      perClient: config.UPLOAD_SLOTS_PER_CLIENT,
      queue: UPLOAD_QUEUE,
      what: "large uploads",
      clientCode: "too_many_uploads",
      retryAfterSeconds: 5,
    };
  });
}

/** Uploads that may wait for a slot at once (beyond: 503). */
const UPLOAD_QUEUE = 32;
/** The rate floor's window: a sender is judged on what arrived in the last this-many seconds. */
const RATE_WINDOW_SECONDS = 5;

/**
 * Watches an upload's pace once per second: when a full window has passed and fewer than
 * `minBytesPerSecond` arrived per second over the last window, it trips (calling `onTrip`,
 * which stops the read).
 */
class RateFloor {
  tripped = false;
  private readonly perSecond: number[] = [0];
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly minBytesPerSecond: number,
    private readonly onTrip: () => void,
  ) {
    this.timer = setInterval(() => this.tick(), 1_000);
    this.timer.unref();
  }

  add(bytes: number) {
    this.perSecond[this.perSecond.length - 1]! += bytes;
  }

  stop() {
    clearInterval(this.timer);
  }

  private tick() {
    const window = this.perSecond.slice(-RATE_WINDOW_SECONDS);
    const arrived = window.reduce((sum, bytes) => sum + bytes, 0);
    if (
      window.length >= RATE_WINDOW_SECONDS &&
      arrived < this.minBytesPerSecond * RATE_WINDOW_SECONDS
    ) {
      this.tripped = true;
      this.stop();
      this.onTrip();
      return;
    }
    this.perSecond.push(0);
    if (this.perSecond.length > RATE_WINDOW_SECONDS) this.perSecond.shift();
  }
}

function tooSlow(minBytesPerSecond: number) {
  return new DomainError(
    "timeout",
    `the upload arrived slower than ${formatBytes(minBytesPerSecond)} per second; retry on a ` +
      "faster connection",
    {},
    "upload_too_slow",
  );
}

/** The JSON body within `limit` bytes; an empty body reads as `undefined`. */
export async function readJson(req: Request, limit: number, wallet?: Address): Promise<unknown> {
  return parseJson(await readBody(req, limit, wallet));
}

function parseJson(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes).toString("utf8");
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

/**
 * A write that a cookie authenticates (or that sets one: sign-in), as a browser can forge it
 * from another site and as it cannot:
 *   - `Origin`, when sent, must be one of the site's configured origins (never derived from
 *     the request's Host);
 *   - `Sec-Fetch-Site`, when sent (every current browser does), must be `same-origin` or
 *     `none` (typed by the user): a request with no Origin from a cross-site page is refused
 *     all the same;
 *   - a body must be `application/json`: a cross-site form or `fetch(..., { mode: "no-cors" })`
 *     can only send text/plain, urlencoded or multipart bodies without a preflight.
 * Programs without these headers (curl, SDKs) pass the first two; bearer-token writes skip all.
 */
function assertBrowserWrite(req: NextRequest) {
  const origin = req.headers.get("origin");
  if (origin && !siteOrigins().includes(origin)) {
    throw new DomainError(
      "forbidden",
      `requests from origin ${origin} are not allowed`,
      {},
      "cross_origin_request",
    );
  }
  const site = req.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new DomainError(
      "forbidden",
      `cross-site requests may not write here (Sec-Fetch-Site: ${site.slice(0, 40)})`,
      {},
      "cross_site_request",
    );
  }
  if (hasRequestBody(req) && !isJsonMediaType(req.headers.get("content-type"))) {
    throw new DomainError(
      "unsupported_media_type",
      "send the request body as JSON with Content-Type: application/json",
      { Accept: "application/json" },
      "unsupported_media_type",
    );
  }
}

function hasRequestBody(req: Request): boolean {
  const length = req.headers.get("content-length");
  return req.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0");
}

/** `application/json`, with parameters (`; charset=utf-8`) or without; nothing else. */
function isJsonMediaType(header: string | null): boolean {
  return header?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}

/** The public URL of this request: the configured origin with the request's path. */
export function publicUrl(req: NextRequest): string {
  return `${siteOrigins()[0]}${req.nextUrl.pathname}${req.nextUrl.search}`;
}

/** Hosts a SIWE message's `domain` may name: the configured origins' hosts, nothing else. */
export function allowedSiweDomains(): string[] {
  return siteOrigins().map((origin) => new URL(origin).host);
}

const LIMIT_PER_MINUTE = {
  read: "RATE_LIMIT_READS_PER_MINUTE",
  write: "RATE_LIMIT_WRITES_PER_MINUTE",
  auth: "RATE_LIMIT_AUTH_PER_MINUTE",
} as const satisfies Record<RateLimitBucket, keyof ReturnType<typeof getConfig>>;

/**
 * Counts the request against its bucket, per client address and per wallet (429 beyond).
 * Writes and sign-ins wait for the shared store; reads are decided in memory and added to it
 * each second (lib/rate-limit.ts, LocalFirstLimiter), so a read costs no round-trip.
 */
export async function enforceRateLimit(req: Request, bucket: RateLimitBucket, wallet?: Address) {
  const keys = [`${bucket}:ip:${addressSubject(requestClientAddress(req))}`];
  if (wallet) keys.push(`${bucket}:wallet:${wallet}`);
  await enforceLimit(bucket, keys);
}

/**
 * Counts a request against `wallet`'s share of the bucket alone, for a wallet known only from
 * what the request carries (a payment's signer: settle attempts per payer are limited like
 * writes, so nobody makes the facilitator verify without end).
 */
export function enforceWalletRateLimit(bucket: RateLimitBucket, wallet: Address) {
  return enforceLimit(bucket, [`${bucket}:wallet:${wallet}`]);
}

async function enforceLimit(bucket: RateLimitBucket, keys: string[]) {
  const limit = getConfig()[LIMIT_PER_MINUTE[bucket]];
  let decision;
  try {
    decision =
      bucket === "read"
        ? getReadLimiter().check(keys, limit)
        : await checkRateLimit(getRateLimitStore(), keys, limit);
  } catch (error) {
    // Never skip the limit silently: without its store the request waits for another day.
    console.error("Rate-limit store failed:", error);
    throw new DomainError("unavailable", "rate limiting is unavailable; retry shortly");
  }
  if (!decision.allowed) {
    throw new DomainError(
      "rate_limited",
      "too many requests; slow down and retry later",
      { "Retry-After": String(decision.retryAfterSeconds) },
      "rate_limited",
    );
  }
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
