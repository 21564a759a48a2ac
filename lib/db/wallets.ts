import type { Address } from "viem";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client";

/** A statement's parameter (`$1`): these fragments never take a value itself. */
type Param = `$${number}`;

/**
 * For a statement's WITH list: gives the wallet at parameter `address` its row if it has none
 * (jobs, sessions, tokens and webhooks refer to it), answering the new row's flag. Timestamps
 * are UTC, as Prisma writes them (the column has no time zone).
 */
export const insertWalletSql = (address: Param) =>
  `INSERT INTO "wallets" ("address", "createdAt")
   VALUES (${address}, now() AT TIME ZONE 'UTC') ON CONFLICT ("address") DO NOTHING
   RETURNING "verified"`;

/**
 * Whether the wallet is verified, after `insertWalletSql` ran as the CTE `cte`. The
 * statement's snapshot predates its own insert, hence: the new row's flag, else the row as it
 * was. A row another transaction inserts meanwhile is seen by neither; it is as new as ours
 * would be, and new wallets are not verified.
 */
export const walletVerifiedSql = (cte: string, address: Param) =>
  `COALESCE((SELECT "verified" FROM "${cte}"),
     (SELECT "verified" FROM "wallets" WHERE "address" = ${address}), false)`;

/**
 * Makes sure the wallet has its row and answers whether it is verified, in one round-trip.
 * Prisma's `upsert` with nothing to update took three (a read, an emulated no-op update, a read
 * back).
 */
export async function ensureWallet(
  db: PrismaClient | Prisma.TransactionClient,
  address: Address,
): Promise<{ verified: boolean }> {
  const [row] = await db.$queryRawUnsafe<{ verified: boolean }[]>(
    `WITH "new_wallet" AS (${insertWalletSql("$1")})
     SELECT ${walletVerifiedSql("new_wallet", "$1")} AS "verified"`,
    address,
  );
  return { verified: row?.verified === true };
}
