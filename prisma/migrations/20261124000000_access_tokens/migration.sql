-- Access tokens for programs (Authorization: Bearer amk_...). Only the SHA-256 of a secret is
-- stored; the secret itself is shown once, at creation.

-- CreateEnum
CREATE TYPE "TokenScope" AS ENUM ('read', 'post', 'bid', 'deliver', 'review');

-- CreateTable
CREATE TABLE "access_tokens" (
    "id" TEXT NOT NULL,
    "wallet" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scopes" "TokenScope"[],
    "tokenHash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),
    "lastUsedAt" TIMESTAMP(3),

    CONSTRAINT "access_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "access_tokens_tokenHash_key" ON "access_tokens"("tokenHash");

-- CreateIndex
CREATE INDEX "access_tokens_wallet_createdAt_id_idx" ON "access_tokens"("wallet", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "access_tokens" ADD CONSTRAINT "access_tokens_wallet_fkey" FOREIGN KEY ("wallet") REFERENCES "wallets"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
