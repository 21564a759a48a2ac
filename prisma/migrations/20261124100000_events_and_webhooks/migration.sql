-- The event feed and signed webhooks (issue 11).
-- events: one row per marketplace transition, written in the transition's own transaction,
--   last, under a transaction-scoped advisory lock (lib/events/record.ts): ids are handed out
--   in commit order, so a reader that has seen id N has seen every committed id below N.
--   Sequence CACHE 1 (the default): values are handed out in time order across sessions.
-- webhook_subscriptions: a wallet's endpoints; webhook_deliveries: the outbox, one row per
--   (event, subscription) or test message; webhook_attempts: the delivery log;
--   webhook_dispatch: where the fan-out has got to in the feed (one row).

-- CreateEnum
CREATE TYPE "WebhookStatus" AS ENUM ('active', 'disabled');

-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed', 'cancelled');

-- CreateTable
CREATE TABLE "events" (
    "id" BIGSERIAL NOT NULL,
    "type" TEXT NOT NULL,
    "jobId" TEXT,
    "category" "Category",
    "actors" TEXT[],
    "data" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "events_jobId_id_idx" ON "events"("jobId", "id");

-- CreateIndex
CREATE INDEX "events_type_id_idx" ON "events"("type", "id");

-- CreateIndex
CREATE INDEX "events_category_id_idx" ON "events"("category", "id");

-- CreateIndex (notifications: the events that concern a wallet)
CREATE INDEX "events_actors_gin" ON "events" USING GIN ("actors");

-- CreateTable
CREATE TABLE "webhook_subscriptions" (
    "id" TEXT NOT NULL,
    "ownerAddress" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "types" TEXT[],
    "categories" "Category"[],
    "secret" TEXT NOT NULL,
    "status" "WebhookStatus" NOT NULL DEFAULT 'active',
    "disabledAt" TIMESTAMP(3),
    "disabledReason" TEXT,
    "startAfterEventId" BIGINT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_subscriptions_ownerAddress_createdAt_idx" ON "webhook_subscriptions"("ownerAddress", "createdAt");

-- CreateIndex
CREATE INDEX "webhook_subscriptions_status_idx" ON "webhook_subscriptions"("status");

-- AddForeignKey
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_ownerAddress_fkey" FOREIGN KEY ("ownerAddress") REFERENCES "wallets"("address") ON DELETE RESTRICT ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "eventId" BIGINT,
    "messageId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL,
    "lastAttemptAt" TIMESTAMP(3),
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_subscriptionId_eventId_key" ON "webhook_deliveries"("subscriptionId", "eventId");

-- CreateIndex
CREATE INDEX "webhook_deliveries_subscriptionId_createdAt_id_idx" ON "webhook_deliveries"("subscriptionId", "createdAt" DESC, "id" DESC);

-- CreateIndex (the workers' queue: due rows first)
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries"("nextAttemptAt") WHERE "status" = 'pending';

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "webhook_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "events"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" BIGSERIAL NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "statusCode" INTEGER,
    "error" TEXT,
    "responseExcerpt" TEXT,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_attempts_deliveryId_attempt_idx" ON "webhook_attempts"("deliveryId", "attempt");

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "webhook_dispatch" (
    "id" INTEGER NOT NULL,
    "cursor" BIGINT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_dispatch_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_dispatch_one_row" CHECK ("id" = 1)
);

INSERT INTO "webhook_dispatch" ("id", "cursor") VALUES (1, 0);
