-- Protected payments (issue 25): a job's payment may be held in the Commerce Payments escrow
-- (x402's auth-capture scheme) and released, refunded or reclaimed later.
ALTER TYPE "JobStatus" ADD VALUE 'cancelled';
ALTER TABLE "jobs" ADD COLUMN "cancelledAt" TIMESTAMP(3);

CREATE TYPE "PaymentScheme" AS ENUM ('exact', 'auth-capture');
CREATE TYPE "EscrowState" AS ENUM (
  'held', 'releasing', 'released', 'refunding', 'refunded', 'splitting', 'split', 'reclaimed'
);
CREATE TYPE "EscrowActionKind" AS ENUM ('capture', 'void', 'reclaim', 'refund');

ALTER TABLE "settlements" ADD COLUMN "scheme" "PaymentScheme" NOT NULL DEFAULT 'exact';
ALTER TABLE "settlements" ADD COLUMN "escrowTerms" JSONB;

CREATE TABLE "escrow_holds" (
    "id" TEXT NOT NULL,
    "settlementId" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "paymentInfoHash" TEXT NOT NULL,
    "escrowAddress" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "receiver" TEXT NOT NULL,
    "amountAtomic" BIGINT NOT NULL,
    "captureBy" TIMESTAMP(3) NOT NULL,
    "refundBy" TIMESTAMP(3) NOT NULL,
    "feeBps" INTEGER NOT NULL,
    "feeReceiver" TEXT NOT NULL,
    "state" "EscrowState" NOT NULL DEFAULT 'held',
    "capturedAtomic" BIGINT NOT NULL DEFAULT 0,
    "feeAtomic" BIGINT NOT NULL DEFAULT 0,
    "returnedAtomic" BIGINT NOT NULL DEFAULT 0,
    "deliverBy" TIMESTAMP(3),
    "disputeOpenedAt" TIMESTAMP(3),
    "disputeOpenedBy" TEXT,
    "disputeReason" TEXT,
    "resolution" TEXT,
    "resolutionReason" TEXT,
    "resolvedBy" TEXT,
    "resolvedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "escrow_holds_pkey" PRIMARY KEY ("id"),
    -- Money never appears from nowhere: what left the hold is at most what it held.
    CONSTRAINT "escrow_holds_amounts_check" CHECK (
      "capturedAtomic" >= 0 AND "feeAtomic" >= 0 AND "returnedAtomic" >= 0
      AND "feeAtomic" <= "capturedAtomic"
      AND "capturedAtomic" + "returnedAtomic" <= "amountAtomic"
    )
);
CREATE UNIQUE INDEX "escrow_holds_settlementId_key" ON "escrow_holds"("settlementId");
CREATE UNIQUE INDEX "escrow_holds_paymentInfoHash_key" ON "escrow_holds"("paymentInfoHash");
CREATE INDEX "escrow_holds_jobId_idx" ON "escrow_holds"("jobId");
CREATE INDEX "escrow_holds_state_captureBy_idx" ON "escrow_holds"("state", "captureBy");
ALTER TABLE "escrow_holds" ADD CONSTRAINT "escrow_holds_settlementId_fkey" FOREIGN KEY ("settlementId") REFERENCES "settlements"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "escrow_actions" (
    "id" TEXT NOT NULL,
    "holdId" TEXT NOT NULL,
    "kind" "EscrowActionKind" NOT NULL,
    "amountAtomic" BIGINT NOT NULL,
    "feeAtomic" BIGINT NOT NULL DEFAULT 0,
    "status" "SettlementStatus" NOT NULL DEFAULT 'pending',
    "txHash" TEXT,
    "actor" TEXT NOT NULL,
    "reason" TEXT,
    "lastError" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "leaseUntil" TIMESTAMP(3),
    "inFlightUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decidedAt" TIMESTAMP(3),

    CONSTRAINT "escrow_actions_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "escrow_actions_txHash_key" ON "escrow_actions"("txHash");
CREATE INDEX "escrow_actions_status_createdAt_idx" ON "escrow_actions"("status", "createdAt");
-- One operator transaction in flight per hold: two servers (or a request and the reconciler)
-- cannot both send one.
CREATE UNIQUE INDEX "escrow_actions_one_pending_per_hold" ON "escrow_actions"("holdId")
  WHERE "status" = 'pending';
ALTER TABLE "escrow_actions" ADD CONSTRAINT "escrow_actions_holdId_fkey" FOREIGN KEY ("holdId") REFERENCES "escrow_holds"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
