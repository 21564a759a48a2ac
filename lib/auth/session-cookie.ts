import "server-only";
import { getIronSession, type SessionOptions, unsealData } from "iron-session";
import { cookies, headers } from "next/headers";
import { cache } from "react";
import type { Address } from "viem";
import { isProduction } from "@/lib/platform/config";
import { getDb } from "@/lib/db";
import { setBounded } from "@/lib/shared/bounded-map";
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
  const sealed = (await cookies()).get(SESSION_COOKIE)?.value;
  const sid = sealed ? await sessionIdOf(sealed) : undefined;
  return sid ? findActiveSession(await getDb(), sid) : undefined;
});

/** Seals that verified, by their text: the session id each carries and until when it may be used. */
const verifiedSeals = new Map<string, { sid: string; usableUntil: number }>();
/**
 * A seal as iron-session writes it (version 2), its expiration captured:
 * prefix*passwordId*salt*iv*data*expiration*salt*hmac~2, about 310 characters for an id.
 */
const ISSUED_SEAL = /^Fe26\.2\*\w*\*[\w-]+\*[\w-]+\*[\w-]+\*(\d*)\*[\w-]+\*[\w-]+~2$/;
const ISSUED_SEAL_MAX = 512;

/** Bounds: entries kept (the oldest goes first), and how long one is trusted at most. */
export const VERIFIED_SEALS = { max: 10_000, ms: 60_000 } as const;

/**
 * The session id a sealed cookie carries, or undefined (tampered, foreign, expired, malformed).
 * Unsealing (iron's HMAC check and AES decryption: four WebCrypto calls) cost about 0.3 ms of
 * CPU on every signed-in request, and its answer for one sealed text never changes but for the
 * seal's expiry: a seal that verified is remembered for a minute at most, never past its own
 * expiry. Only verified seals are kept, so forged cookies hold no memory; revocation is
 * unaffected (the session's row is read on every request).
 */
export async function sessionIdOf(sealed: string, now = Date.now()): Promise<string | undefined> {
  const known = verifiedSeals.get(sealed);
  if (known && known.usableUntil > now) return known.sid;
  verifiedSeals.delete(sealed);
  const { password, ttl } = sessionOptions();
  // iron-session throws on some malformed seals (a wrong prefix, a bad expiration) where it
  // answers {} on others: either way, nobody is signed in.
  const unsealed = await unsealData<SessionCookie>(sealed, { password, ttl }).catch(() => ({}));
  const sid = validSid((unsealed as SessionCookie).sid);
  if (!sid) return undefined;
  // Remembered only in the exact form this server writes: iron-session ignores what follows
  // the version, so one valid seal has endless longer spellings, each of which would verify.
  const issued = sealed.length <= ISSUED_SEAL_MAX ? ISSUED_SEAL.exec(sealed) : null;
  if (!issued) return sid;
  // The HMAC that just verified covers the expiration (milliseconds; empty when none).
  const expiration = Number(issued[1] || Infinity);
  const usableUntil = Math.min(expiration, now + VERIFIED_SEALS.ms);
  setBounded(verifiedSeals, sealed, { sid, usableUntil }, VERIFIED_SEALS.max);
  return sid;
}

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
