-- A hold's operator transactions, read by the payment view and the earnings (every status:
-- the partial index escrow_actions_one_pending_per_hold covers only pending rows).
CREATE INDEX "escrow_actions_holdId_idx" ON "escrow_actions"("holdId");
