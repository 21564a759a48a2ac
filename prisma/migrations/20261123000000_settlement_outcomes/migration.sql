-- Settlement outcomes that hold under faults (issue 8).
-- claimBlock: the chain's block number when the slot was claimed; reconciliation searches the
--   token's logs from there (never from block 0, which public RPCs refuse).
-- payload: the x402 PaymentPayload as the payer sent it, to answer an identical retry with the
--   recorded result and to finish a settlement a crash interrupted.
-- leaseUntil / attempts: the background reconciler's claim on a pending row (FOR UPDATE SKIP
--   LOCKED picks it, the lease keeps other servers off while the chain is asked).
-- inFlightUntil: while the request that claimed the row may still be settling it, the
--   reconciler only reads the chain and never resubmits.
-- lastError: why a pending row is still pending; failureCode: the contract's code of a failed one.
ALTER TABLE "settlements"
    ADD COLUMN "claimBlock" BIGINT,
    ADD COLUMN "payload" JSONB,
    ADD COLUMN "leaseUntil" TIMESTAMP(3),
    ADD COLUMN "inFlightUntil" TIMESTAMP(3),
    ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "lastError" TEXT,
    ADD COLUMN "failureCode" TEXT;

-- The reconciler's queue: pending rows, oldest first.
CREATE INDEX "settlements_pending_createdAt_idx" ON "settlements"("createdAt") WHERE "status" = 'pending';
