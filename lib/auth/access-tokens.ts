import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { type Address, getAddress } from "viem";
import type { Db } from "@/lib/db";
import { readRows } from "@/lib/db/row-reader";
import { ensureWallet } from "@/lib/db/wallets";
import { WRITE_TRANSACTION } from "@/lib/db/transaction-budget";
import { type AccessToken, Prisma } from "@/lib/generated/prisma/client";
import { DomainError, notFound } from "@/lib/platform/errors";
import { isPossibleId, newId } from "@/lib/kernel/ids";
import { checksumAddress } from "@/lib/kernel/serialize";
import { afterCursor, decodeCursor, orderBy, type Page, toPage } from "@/lib/kernel/pagination";
import type { TokenScope } from "@/lib/shared/enums";
import {
  type CreateTokenInput,
  type ListTokensQuery,
  MAX_LIVE_TOKENS_PER_WALLET,
} from "@/lib/shared/schemas/tokens";
import type { AccessTokenView, CreatedAccessTokenView } from "@/lib/shared/view-types";

/**
 * Access tokens: a wallet's credential for programs, `Authorization: Bearer amk_<43 chars>`.
 * The secret is 256 random bits, shown once; the database keeps only its SHA-256, so a leaked
 * table signs nobody in. A token acts as its wallet within its scopes until it expires or is
 * revoked; `lastUsedAt` is refreshed at most once a minute.
 */

export const TOKEN_PREFIX = "amk_";
const SECRET_SHAPE = /^amk_[A-Za-z0-9_-]{43}$/;
const LAST_USED_RESOLUTION_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface TokenCredential {
  tokenId: string;
  wallet: Address;
  scopes: TokenScope[];
}

export const hashToken = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** Whether `secret` has the shape this server issues (checked before any database read). */
export const isTokenShaped = (secret: string) => SECRET_SHAPE.test(secret);

/** A new token for `wallet` (a signed-in browser session makes it); its secret, this once. */
export async function createAccessToken(
  db: Db,
  wallet: Address,
  input: CreateTokenInput,
  now = new Date(),
): Promise<CreatedAccessTokenView> {
  const secret = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const address = getAddress(wallet);
  const row = await db.$transaction(async (tx) => {
    await ensureWallet(tx, address);
    // One token creation per wallet at a time (the webhooks' lock, lib/events/webhooks.ts), so
    // concurrent requests cannot each see room for one more.
    await tx.$queryRaw`SELECT "address" FROM "wallets" WHERE "address" = ${address} FOR NO KEY UPDATE`;
    const live = await tx.accessToken.count({
      where: { wallet: address, revokedAt: null, expiresAt: { gt: now } },
    });
    if (live >= MAX_LIVE_TOKENS_PER_WALLET) {
      throw new DomainError(
        "conflict",
        `a wallet may have at most ${MAX_LIVE_TOKENS_PER_WALLET} live access tokens; ` +
          "revoke one you no longer use",
        {},
        "token_limit_reached",
      );
    }
    return tx.accessToken.create({
      data: {
        id: newId("tok"),
        wallet: address,
        name: input.name,
        scopes: input.scopes,
        tokenHash: hashToken(secret),
        hint: `${TOKEN_PREFIX}…${secret.slice(-4)}`,
        createdAt: now,
        expiresAt: new Date(now.getTime() + input.expiresInDays * DAY_MS),
      },
    });
  }, WRITE_TRANSACTION);
  return { ...toAccessTokenView(row, now), token: secret };
}

/** The wallet's tokens (active, expired and revoked), newest first; never a secret. */
export async function listAccessTokens(
  db: Db,
  wallet: Address,
  query: ListTokensQuery,
  now = new Date(),
): Promise<Page<AccessTokenView>> {
  const rows = await db.accessToken.findMany({
    where: afterCursor({ wallet: getAddress(wallet) }, decodeCursor(query.cursor), "desc"),
    orderBy: orderBy("desc"),
    take: query.limit + 1,
  });
  return toPage(rows, query.limit, (row) => toAccessTokenView(row, now));
}

/**
 * Revokes one of the wallet's tokens (another wallet's token is as unknown as a missing one:
 * 404). Revoking a revoked token answers it unchanged.
 */
export async function revokeAccessToken(
  db: Db,
  wallet: Address,
  id: string,
  now = new Date(),
): Promise<AccessTokenView> {
  const where = { id, wallet: getAddress(wallet) };
  if (isPossibleId(id)) {
    await db.accessToken.updateMany({
      where: { ...where, revokedAt: null },
      data: { revokedAt: now },
    });
  }
  const row = isPossibleId(id) ? await db.accessToken.findFirst({ where }) : null;
  if (!row) throw notFound("token_not_found", `access token ${id} not found`);
  return toAccessTokenView(row, now);
}

export type TokenCheck =
  { status: "active"; credential: TokenCredential } | { status: "unknown" | "expired" | "revoked" };

/**
 * What `secret` is: a live token and its credential, or why not (unknown, revoked, expired).
 * One read by the hash's unique index, as a prepared statement outside Prisma on PostgreSQL
 * (lib/db/row-reader.ts: every request with a token makes it, as every signed-in one reads its
 * session); a secret of the wrong shape reads nothing.
 */
export async function checkToken(db: Db, secret: string, now = new Date()): Promise<TokenCheck> {
  if (!isTokenShaped(secret)) return { status: "unknown" };
  // Instants as epoch milliseconds, computed by the database from the stored UTC time.
  const [row] = await readRows<{
    id: string;
    wallet: string;
    scopes: TokenScope[];
    revoked: boolean;
    expiresMs: number;
    lastUsedMs: number | null;
  }>(
    db,
    Prisma.sql`SELECT "id", "wallet", "scopes"::text[] AS "scopes",
      "revokedAt" IS NOT NULL AS "revoked",
      (extract(epoch FROM "expiresAt") * 1000)::float8 AS "expiresMs",
      (extract(epoch FROM "lastUsedAt") * 1000)::float8 AS "lastUsedMs"
      FROM "access_tokens" WHERE "tokenHash" = ${hashToken(secret)}`,
  );
  if (!row) return { status: "unknown" };
  if (row.revoked) return { status: "revoked" };
  if (row.expiresMs <= now.getTime()) return { status: "expired" };
  if (row.lastUsedMs === null || now.getTime() - row.lastUsedMs > LAST_USED_RESOLUTION_MS) {
    const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    await db.accessToken.updateMany({
      where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: stale } }] },
      data: { lastUsedAt: now },
    });
  }
  return {
    status: "active",
    credential: { tokenId: row.id, wallet: checksumAddress(row.wallet), scopes: row.scopes },
  };
}

export function toAccessTokenView(row: AccessToken, now = new Date()): AccessTokenView {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    hint: row.hint,
    status: row.revokedAt ? "revoked" : row.expiresAt <= now ? "expired" : "active",
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    revokedAt: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}
