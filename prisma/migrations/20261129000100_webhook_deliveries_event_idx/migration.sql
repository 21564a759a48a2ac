-- Deleting an event sets the eventId of its (finished) deliveries to NULL (ON DELETE SET NULL):
-- without an index on the column each deleted event would scan the whole delivery log.

-- CreateIndex
CREATE INDEX "webhook_deliveries_eventId_idx" ON "webhook_deliveries"("eventId");
