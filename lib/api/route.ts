import "server-only";
import type { NextRequest } from "next/server";
import type { Address } from "viem";
import type { ZodType } from "zod";
import { type Caller, hasBearer, requireWallet } from "@/lib/auth/caller";
import { getConfig } from "@/lib/platform/config";
import { withServerTiming } from "@/lib/platform/server-timing";
import { JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import type { TokenScope } from "@/lib/shared/enums";
import { assertBrowserWrite } from "./browser-writes";
import { toErrorResponse } from "./envelope";
import { parseJson, readBody, readJson, tooLarge } from "./request-body";
import { enforceRateLimit, type RateLimitBucket } from "./request-limits";

/**
 * The request pipeline every API route runs (lib/api/serve.ts builds the contract's routes on
 * it): Origin and Sec-Fetch-Site (cookie writes) → the caller, a session cookie or a bearer
 * access token and its scope (401/403 before a byte of the body is read) → rate limit → the
 * declared body size → the handler, which reads the body within the limit. The app server
 * (server/app-server.ts) has already refused a declared oversize body with 413.
 */

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
   * The access-token scope this route needs (docs/api.md: Access tokens, the scope table). A list:
   * any one of them lets the token in, and the handler checks which one the caller's role
   * needs (posting a message: `post` for the poster, `bid` for the agent's side).
   */
  scope?: TokenScope | readonly TokenScope[];
  /**
   * Which rate-limit bucket the request counts against. Reads (GET) count as `read` unless
   * they name another (or `none`: the health probes); a write names its own.
   */
  rateLimit?: RateLimitBucket | "none";
  /** The most the body may hold (default: the JSON limit, 1 MiB). */
  bodyLimit?: number;
}

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
      const bucket =
        options.rateLimit === "none"
          ? undefined
          : (options.rateLimit ?? (isWrite ? undefined : "read"));
      if (bucket) await enforceRateLimit(req, bucket, wallet);

      const limit = options.bodyLimit ?? JSON_BODY_LIMIT;
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
