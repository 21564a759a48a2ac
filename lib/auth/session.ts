import { getIronSession, type SessionOptions } from "iron-session";
import { cookies } from "next/headers";
import type { Address } from "viem";
import { isProduction } from "@/lib/config";
import { unauthenticated } from "@/lib/errors";
import { getSessionSecret } from "./secret";

export const SESSION_COOKIE = "marketplace_session";
export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface SessionData {
  address?: Address;
  /** Unix ms; checked on every read in addition to iron-session's own seal expiry. */
  expiresAt?: number;
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

async function openSession() {
  return getIronSession<SessionData>(await cookies(), sessionOptions());
}

/** The signed-in wallet, or undefined. Tampered, foreign and expired cookies read as none. */
export async function currentWallet(): Promise<Address | undefined> {
  const session = await openSession();
  if (!session.address || !session.expiresAt || session.expiresAt <= Date.now()) return undefined;
  return session.address;
}

export async function requireWallet(): Promise<Address> {
  const wallet = await currentWallet();
  if (!wallet) throw unauthenticated("sign in with your wallet first (no valid session)");
  return wallet;
}

export async function startSession(address: Address): Promise<void> {
  const session = await openSession();
  session.address = address;
  session.expiresAt = Date.now() + SESSION_TTL_SECONDS * 1000;
  await session.save();
}

export async function endSession(): Promise<void> {
  const session = await openSession();
  session.destroy();
}
