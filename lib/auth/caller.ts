import type { ErrorCode } from "@/lib/shared/error-codes";
import "server-only";
import type { Address } from "viem";
import { getDb } from "@/lib/db";
import { DomainError, unauthenticated } from "@/lib/platform/errors";
import type { TokenScope } from "@/lib/shared/enums";
import { checkToken } from "./access-tokens";
import { currentWallet } from "./session-cookie";

/**
 * Who is calling: the one answer for every route (through `route()` in lib/http.ts) and the
 * MCP server. A request that names a bearer token (`Authorization: Bearer amk_…`) is judged by
 * that token alone, whatever cookie it also carries; any other request by its session cookie.
 *
 *   - bad token (unknown, expired, revoked) → 401 `invalid_token`
 *   - live token without the scope the route needs → 403 `insufficient_scope`
 *   - live token on a route for browser sessions only (token management) → 403
 *     `session_required`: a token never mints, lists or revokes tokens, so a leaked token
 *     cannot outlive its revocation or widen its own scopes; a SIWE signature stays the root
 *     of every credential
 *   - no token and no live session → 401
 */

export type Caller =
  | { via: "session"; wallet: Address }
  | { via: "token"; wallet: Address; tokenId: string; scopes: TokenScope[] };

export interface Access {
  /**
   * Bearer tokens: accepted when they carry this scope; `"any"`: any live token (the handler
   * checks scopes itself, as each MCP tool does); `null`: refused (browser sessions only).
   */
  token: TokenScope | readonly TokenScope[] | "any" | null;
  /** Session cookies accepted (default true). */
  cookie?: boolean;
}

/** Whether the request names a bearer credential (well-formed or not). */
export function hasBearer(req: Request): boolean {
  return /^bearer(\s|$)/i.test(req.headers.get("authorization") ?? "");
}

export async function requireWallet(req: Request, access: Access): Promise<Caller> {
  if (hasBearer(req)) {
    const secret = (req.headers.get("authorization") ?? "").slice("bearer".length).trim();
    const check = await checkToken(await getDb(), secret);
    if (check.status !== "active") throw invalidToken(TOKEN_REFUSALS[check.status]);
    const caller: Caller = { via: "token", ...check.credential };
    if (access.token === null) {
      throw new DomainError(
        "forbidden",
        "access tokens cannot be used here: sign in with your wallet (a browser session) for this",
        {},
        "session_required",
      );
    }
    if (access.token !== "any") assertScope(caller, access.token);
    return caller;
  }
  if (access.cookie === false) {
    throw invalidToken(
      "send an access token: Authorization: Bearer amk_… (create one at /settings/tokens)",
      "token_required",
    );
  }
  const wallet = await currentWallet();
  if (!wallet) throw unauthenticated("sign in with your wallet first (no valid session)");
  return { via: "session", wallet };
}

/** Whether the caller may act with `scope` (a session may do anything); a list: any one. */
export function hasScope(caller: Caller, scope: TokenScope | readonly TokenScope[]): boolean {
  const scopes: readonly TokenScope[] = typeof scope === "string" ? [scope] : scope;
  return caller.via === "session" || scopes.some((one) => caller.scopes.includes(one));
}

/** 403 `insufficient_scope` unless the caller `hasScope(scope)`. */
export function assertScope(caller: Caller, scope: TokenScope | readonly TokenScope[]): void {
  if (hasScope(caller, scope)) return;
  const scopes: readonly TokenScope[] = typeof scope === "string" ? [scope] : scope;
  const wanted = scopes.map((one) => `"${one}"`).join(" or ");
  // Only a token lacks a scope (a session has them all).
  const held = caller.via === "token" ? caller.scopes : [];
  throw new DomainError(
    "forbidden",
    `this access token does not have the ${wanted} scope (it has: ${held.join(", ")})`,
    { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${scopes.join(" ")}"` },
    "insufficient_scope",
  );
}

const TOKEN_REFUSALS = {
  unknown: "the access token is not valid",
  expired: "the access token has expired; create a new one",
  revoked: "the access token has been revoked",
} as const;

function invalidToken(message: string, code: ErrorCode = "invalid_token") {
  const header =
    code === "invalid_token" ? `Bearer error="invalid_token"` : `Bearer realm="marketplace"`;
  return new DomainError("unauthenticated", message, { "WWW-Authenticate": header }, code);
}
