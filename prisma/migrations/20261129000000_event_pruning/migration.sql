-- Retention of the event feed (issue 28): events are deleted oldest first once past
-- EVENT_RETENTION_DAYS and no webhook needs them (lib/events/retention.ts).
-- event_pruning: one row; every event with an id up to "prunedThrough" was deleted, so a feed
--   cursor below it is answered 410 cursor_expired instead of silently skipping what was
--   deleted. The pruner holds the row (FOR UPDATE SKIP LOCKED): one server prunes at a time.

-- CreateTable
CREATE TABLE "event_pruning" (
    "id" INTEGER NOT NULL,
    "prunedThrough" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_pruning_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "event_pruning_one_row" CHECK ("id" = 1)
);

INSERT INTO "event_pruning" ("id", "prunedThrough") VALUES (1, 0);
