-- The retention pass finds finished deliveries by completedAt (set when a delivery succeeds,
-- fails or is cancelled; NULL while pending), oldest first, without scanning the log.

-- CreateIndex
CREATE INDEX "webhook_deliveries_completed_idx" ON "webhook_deliveries"("completedAt") WHERE "completedAt" IS NOT NULL;
