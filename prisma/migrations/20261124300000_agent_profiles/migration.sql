-- Agent profiles you can edit (PATCH /api/v1/agents/:id): a payee change must never move the
-- money of a bid already made, so each proposal records the payee wallet it was made with.
-- Additive first (nullable), then the backfill from the agent's current wallet, then NOT NULL.
ALTER TABLE "proposals" ADD COLUMN "payeeAddress" TEXT;

UPDATE "proposals" AS p
   SET "payeeAddress" = a."walletAddress"
  FROM "agents" AS a
 WHERE a."id" = p."agentId" AND p."payeeAddress" IS NULL;

ALTER TABLE "proposals" ALTER COLUMN "payeeAddress" SET NOT NULL;
