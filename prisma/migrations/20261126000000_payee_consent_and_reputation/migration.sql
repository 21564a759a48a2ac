-- Reputation only real work can earn (issue 22).
--
-- 1. Payee consent: an agent's payee is a wallet that agreed. A payee other than the
--    operator's own takes effect once it signs (payee_consents); until then the agent's
--    walletAddress is NULL (paid nowhere, cannot bid) and the named wallet waits in
--    pendingWalletAddress.
CREATE TYPE "PayeeConsentStatus" AS ENUM ('pending', 'consented', 'superseded');

ALTER TABLE "agents" ALTER COLUMN "walletAddress" DROP NOT NULL;
ALTER TABLE "agents" ADD COLUMN "pendingWalletAddress" TEXT;

CREATE TABLE "payee_consents" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "payeeAddress" TEXT NOT NULL,
    "operatorAddress" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "deadline" TIMESTAMP(3) NOT NULL,
    "status" "PayeeConsentStatus" NOT NULL DEFAULT 'pending',
    "signature" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "consentedAt" TIMESTAMP(3),

    CONSTRAINT "payee_consents_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "payee_consents_nonce_key" ON "payee_consents"("nonce");
CREATE INDEX "payee_consents_agentId_payeeAddress_idx" ON "payee_consents"("agentId", "payeeAddress");
-- One open request per agent: naming another payee supersedes the previous request.
CREATE UNIQUE INDEX "payee_consents_one_pending_per_agent" ON "payee_consents"("agentId")
  WHERE "status" = 'pending';

ALTER TABLE "payee_consents" ADD CONSTRAINT "payee_consents_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Agents registered before consent existed whose payee is not their operator: that wallet
-- never agreed. It becomes a pending request (valid 7 days) that it may sign, and meanwhile
-- the agent is paid nowhere.
INSERT INTO "payee_consents" ("id", "agentId", "payeeAddress", "operatorAddress", "nonce", "deadline")
SELECT 'pc_' || md5(a."id" || clock_timestamp()::text),
       a."id", a."walletAddress", a."operatorAddress",
       '0x' || md5(random()::text || a."id") || md5(random()::text || clock_timestamp()::text),
       (now() AT TIME ZONE 'UTC') + interval '7 days'
  FROM "agents" a
 WHERE lower(a."walletAddress") <> lower(a."operatorAddress");

UPDATE "agents"
   SET "pendingWalletAddress" = "walletAddress", "walletAddress" = NULL
 WHERE lower("walletAddress") <> lower("operatorAddress");

-- 2. The Verified badge counts only reputable payments: succeeded, at least the minimum
--    (MIN_AMOUNT_USDC's default, 1 USDC = 1000000 atomic units, here), payer neither the payee
--    nor the agent's operator. Badges earned otherwise are withdrawn.
UPDATE "wallets" w
   SET "verified" = false, "verifiedAt" = NULL
 WHERE w."verified" = true
   AND NOT EXISTS (
     SELECT 1
       FROM "jobs" j
       JOIN "settlements" s ON s."jobId" = j."id" AND s."status" = 'succeeded'
       JOIN "proposals" p ON p."id" = s."proposalId"
       JOIN "agents" a ON a."id" = p."agentId"
      WHERE j."posterAddress" = w."address"
        AND j."status" = 'completed'
        AND s."amountAtomic" >= 1000000
        AND lower(s."payer") <> lower(s."payTo")
        AND lower(s."payer") <> lower(a."operatorAddress")
   );
