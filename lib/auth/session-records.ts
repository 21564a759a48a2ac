import "server-only";
import { randomBytes } from "node:crypto";
import { type Address, getAddress } from "viem";
import type { Db } from "@/lib/db";
import { readRows } from "@/lib/db/row-reader";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * Server-side sessions: a row per sign-in (id, wallet, created, expires, revoked, last seen,
 * user agent). The cookie carries only the sealed id, so logout is real: a revoked or
 * expired row signs nobody in, whatever cookie is replayed.
 */

export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
/** `lastSeenAt` is refreshed at most this often, so most requests stay one read. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;
const PRUNE_EVERY_MS = 10 * 60_000;
const USER_AGENT_MAX = 512;

export interface ActiveSession {
  id: string;
  wallet: Address;
}

/** A new session for `wallet` (256-bit random id); prunes expired rows now and then. */
export async function createSession(
  db: Db,
  wallet: Address,
  userAgent: string | null,
  now = new Date(),
): Promise<ActiveSession> {
  const id = randomBytes(32).toString("base64url");
  const address = getAddress(wallet);
  await db.session.create({
    data: {
      id,
      wallet: address,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000),
      userAgent: (userAgent ?? "").slice(0, USER_AGENT_MAX),
    },
  });
  await maybePruneSessions(db, now);
  return { id, wallet: address };
}

/**
 * The live session with this id, or undefined: one primary-key read, as a prepared statement
 * outside Prisma on PostgreSQL (lib/db/row-reader.ts: every signed-in request makes it).
 * `lastSeenAt` is bumped when it is more than a minute old (a conditional write, so concurrent
 * requests bump it once).
 */
export async function findActiveSession(
  db: Db,
  id: string,
  now = new Date(),
): Promise<ActiveSession | undefined> {
  // Instants as epoch milliseconds, computed by the database from the stored UTC time: no
  // driver's reading of a time zone comes between.
  const [row] = await readRows<{
    wallet: string;
    revoked: boolean;
    expiresMs: number;
    lastSeenMs: number;
  }>(
    db,
    Prisma.sql`SELECT "wallet", "revokedAt" IS NOT NULL AS "revoked",
      (extract(epoch FROM "expiresAt") * 1000)::float8 AS "expiresMs",
      (extract(epoch FROM "lastSeenAt") * 1000)::float8 AS "lastSeenMs"
      FROM "sessions" WHERE "id" = ${id}`,
  );
  if (!row || row.revoked || row.expiresMs <= now.getTime()) return undefined;
  if (now.getTime() - row.lastSeenMs > LAST_SEEN_RESOLUTION_MS) {
    const stale = new Date(now.getTime() - LAST_SEEN_RESOLUTION_MS);
    await db.session.updateMany({
      where: { id, lastSeenAt: { lt: stale } },
      data: { lastSeenAt: now },
    });
  }
  return { id, wallet: row.wallet as Address };
}

/** Revokes one session (logout). Revoking twice is harmless. */
export async function revokeSession(db: Db, id: string, now = new Date()): Promise<void> {
  await db.session.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
}

/** Revokes every live session of the wallet (logout everywhere); returns how many. */
export async function revokeWalletSessions(
  db: Db,
  wallet: Address,
  now = new Date(),
): Promise<number> {
  const result = await db.session.updateMany({
    where: { wallet: getAddress(wallet), revokedAt: null, expiresAt: { gt: now } },
    data: { revokedAt: now },
  });
  return result.count;
}

/** Deletes sessions past their expiry (revoked ones included once they expire). */
export async function pruneExpiredSessions(db: Db, now = new Date()): Promise<number> {
  const result = await db.session.deleteMany({ where: { expiresAt: { lte: now } } });
  return result.count;
}

const globalForPrune = globalThis as typeof globalThis & { __sessionsPrunedAt?: number };

async function maybePruneSessions(db: Db, now: Date) {
  const last = globalForPrune.__sessionsPrunedAt ?? 0;
  if (now.getTime() - last < PRUNE_EVERY_MS) return;
  globalForPrune.__sessionsPrunedAt = now.getTime();
  await pruneExpiredSessions(db, now);
}
