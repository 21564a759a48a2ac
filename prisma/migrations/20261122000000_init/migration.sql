-- CreateEnum
CREATE TYPE "Category" AS ENUM ('research', 'writing', 'design', 'engineering', 'data', 'trading', 'ops', 'marketing', 'audio', 'video', 'image', 'translation', 'legal', 'finance', 'customer_support', 'social_media', 'seo', 'testing', 'security', 'devops', 'blockchain', 'education', 'consulting');

-- CreateEnum
CREATE TYPE "JobStatus" AS ENUM ('open', 'in_progress', 'delivered', 'completed');

-- CreateEnum
CREATE TYPE "ProposalStatus" AS ENUM ('pending', 'accepted', 'rejected');

-- CreateEnum
CREATE TYPE "SettlementStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "wallets" (
    "address" TEXT NOT NULL,
    "verified" BOOLEAN NOT NULL DEFAULT false,
    "verifiedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallets_pkey" PRIMARY KEY ("address")
);

-- CreateTable
CREATE TABLE "siwe_nonces" (
    "nonce" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "siwe_nonces_pkey" PRIMARY KEY ("nonce")
);

-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "walletAddress" TEXT NOT NULL,
    "operatorAddress" TEXT NOT NULL,
    "categories" "Category"[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "jobs" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "category" "Category" NOT NULL,
    "budgetAtomic" BIGINT NOT NULL,
    "timelineDays" INTEGER NOT NULL,
    "requirements" TEXT[],
    "handle" TEXT NOT NULL,
    "status" "JobStatus" NOT NULL DEFAULT 'open',
    "posterAddress" TEXT NOT NULL,
    "assignedAgentId" TEXT,
    "acceptedProposalId" TEXT,
    "paymentTxHash" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "jobs_budgetAtomic_positive" CHECK ("budgetAtomic" > 0),
    CONSTRAINT "jobs_timelineDays_positive" CHECK ("timelineDays" > 0)
);

-- CreateTable
CREATE TABLE "proposals" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "bidAtomic" BIGINT NOT NULL,
    "etaDays" INTEGER NOT NULL,
    "message" TEXT NOT NULL,
    "status" "ProposalStatus" NOT NULL DEFAULT 'pending',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "proposals_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "proposals_bidAtomic_positive" CHECK ("bidAtomic" > 0),
    CONSTRAINT "proposals_etaDays_positive" CHECK ("etaDays" > 0)
);

-- CreateTable
CREATE TABLE "reviews" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "reviewerAddress" TEXT NOT NULL,
    "rating" INTEGER NOT NULL,
    "comment" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reviews_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "reviews_rating_range" CHECK ("rating" BETWEEN 1 AND 5)
);

-- CreateTable
CREATE TABLE "attachments" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "data" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "attachments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "settlements" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "proposalId" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "payTo" TEXT NOT NULL,
    "amountAtomic" BIGINT NOT NULL,
    "network" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "authorizationNonce" TEXT NOT NULL,
    "validBefore" BIGINT NOT NULL,
    "txHash" TEXT,
    "status" "SettlementStatus" NOT NULL DEFAULT 'pending',
    "failureReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settledAt" TIMESTAMP(3),

    CONSTRAINT "settlements_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "settlements_amountAtomic_positive" CHECK ("amountAtomic" > 0)
);

-- CreateIndex
CREATE INDEX "siwe_nonces_expiresAt_idx" ON "siwe_nonces"("expiresAt");

-- CreateIndex
CREATE INDEX "agents_createdAt_id_idx" ON "agents"("createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "agents_walletAddress_idx" ON "agents"("walletAddress");

-- CreateIndex
CREATE INDEX "agents_operatorAddress_idx" ON "agents"("operatorAddress");

-- CreateIndex (not expressible in the Prisma schema)
CREATE INDEX "agents_categories_gin" ON "agents" USING GIN ("categories");

-- CreateIndex
CREATE UNIQUE INDEX "jobs_acceptedProposalId_key" ON "jobs"("acceptedProposalId");

-- CreateIndex
CREATE INDEX "jobs_createdAt_id_idx" ON "jobs"("createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "jobs_status_createdAt_id_idx" ON "jobs"("status", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "jobs_category_createdAt_id_idx" ON "jobs"("category", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "jobs_status_category_createdAt_id_idx" ON "jobs"("status", "category", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "jobs_posterAddress_idx" ON "jobs"("posterAddress");

-- CreateIndex
CREATE INDEX "jobs_assignedAgentId_status_idx" ON "jobs"("assignedAgentId", "status");

-- CreateIndex
CREATE INDEX "proposals_jobId_createdAt_id_idx" ON "proposals"("jobId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "proposals_jobId_status_createdAt_id_idx" ON "proposals"("jobId", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "proposals_agentId_idx" ON "proposals"("agentId");

-- CreateIndex (not expressible in the Prisma schema): one live proposal per agent and job
CREATE UNIQUE INDEX "proposals_one_active_per_agent" ON "proposals"("jobId", "agentId") WHERE "status" <> 'rejected';

-- CreateIndex
CREATE INDEX "reviews_agentId_createdAt_id_idx" ON "reviews"("agentId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "reviews_jobId_reviewerAddress_key" ON "reviews"("jobId", "reviewerAddress");

-- CreateIndex
CREATE INDEX "attachments_jobId_idx" ON "attachments"("jobId");

-- CreateIndex
CREATE UNIQUE INDEX "settlements_txHash_key" ON "settlements"("txHash");

-- CreateIndex
CREATE UNIQUE INDEX "settlements_network_asset_payer_authorizationNonce_key" ON "settlements"("network", "asset", "payer", "authorizationNonce");

-- CreateIndex
CREATE INDEX "settlements_jobId_proposalId_idx" ON "settlements"("jobId", "proposalId");

-- CreateIndex
CREATE INDEX "settlements_status_createdAt_idx" ON "settlements"("status", "createdAt");

-- CreateIndex (not expressible in the Prisma schema): at most one pending-or-succeeded settlement per job
CREATE UNIQUE INDEX "settlements_one_live_per_job" ON "settlements"("jobId") WHERE "status" IN ('pending', 'succeeded');

-- AddForeignKey
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_posterAddress_fkey" FOREIGN KEY ("posterAddress") REFERENCES "wallets"("address") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_assignedAgentId_fkey" FOREIGN KEY ("assignedAgentId") REFERENCES "agents"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "jobs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "jobs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "jobs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "settlements" ADD CONSTRAINT "settlements_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "jobs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
