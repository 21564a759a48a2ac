import "server-only";
import { getIronSession, type SessionOptions } from "iron-session";
import { cookies, headers } from "next/headers";
import { cache } from "react";
import type { Address } from "viem";
import { isProduction } from "@/lib/platform/config";
import { getDb } from "@/lib/db";
import { getSessionSecret } from "./secret";
import {
  type ActiveSession,
  createSession,
  findActiveSession,
  revokeSession,
  revokeWalletSessions,
  SESSION_TTL_SECONDS,
} from "./session-records";

export { SESSION_TTL_SECONDS } from "./session-records";

export const SESSION_COOKIE = "marketplace_session";

/** What the sealed cookie holds: only the id of a row in `sessions`. */
export interface SessionCookie {
  sid?: string;
}

export function sessionOptions(): SessionOptions {
  return {
    cookieName: SESSION_COOKIE,
    password: getSessionSecret(),
    ttl: SESSION_TTL_SECONDS,
    cookieOptions: {
      httpOnly: true,
      sameSite: "lax",
      secure: isProduction(),
      path: "/",
    },
  };
}

async function openCookie() {
  return getIronSession<SessionCookie>(await cookies(), sessionOptions());
}

/**
 * The live session of this request, or undefined: the cookie is unsealed (tampered and
 * foreign cookies read as none, without touching the database), then its row is read by
 * primary key; revoked and expired rows read as none. Cached per server render, so a page
 * and its layout share one lookup.
 */
const currentSession = cache(async (): Promise<ActiveSession | undefined> => {
  const sid = validSid((await openCookie()).sid);
  return sid ? findActiveSession(await getDb(), sid) : undefined;
});

/** A sealed id of the shape this server issues (43 base64url characters), else undefined. */
function validSid(sid: unknown): string | undefined {
  return typeof sid === "string" && /^[A-Za-z0-9_-]{43}$/.test(sid) ? sid : undefined;
}

/** The signed-in wallet, or undefined (pages: what to show). */
export async function currentWallet(): Promise<Address | undefined> {
  return (await currentSession())?.wallet;
}

/**
 * Records a new session for `address` and sets its sealed id as the cookie. A session the
 * request's cookie named before is revoked: one cookie, one live session.
 */
export async function startSession(address: Address): Promise<void> {
  const db = await getDb();
  const userAgent = (await headers()).get("user-agent");
  const cookie = await openCookie();
  const previous = validSid(cookie.sid);
  const session = await createSession(db, address, userAgent);
  if (previous) await revokeSession(db, previous);
  cookie.sid = session.id;
  await cookie.save();
}

/**
 * Logout: revokes this session on the server (or, with `all`, every session of its wallet)
 * and clears the cookie. Returns false when `all` was asked without a live session.
 */
export async function endSession(options: { all?: boolean } = {}): Promise<boolean> {
  const db = await getDb();
  const session = await currentSession();
  const cookie = await openCookie();
  const sid = validSid(cookie.sid);
  if (session && options.all) await revokeWalletSessions(db, session.wallet);
  else if (sid) await revokeSession(db, sid);
  // Whatever the answer, a stale cookie does not stay behind.
  cookie.destroy();
  return !options.all || session !== undefined;
}
