import { type Db, getDb } from "@/lib/db";
import { WRITE_TRANSACTION } from "@/lib/db/transaction-budget";
import { getConfig } from "@/lib/platform/config";
import { errorSummary } from "@/lib/platform/redact";

/**
 * Retention: the logs that grow with every transition are pruned by every server's background
 * timer (like the webhook worker), in bounded batches, safe with any number of servers.
 *
 * - The webhook delivery log: a delivery that finished (succeeded, failed or cancelled) more
 *   than WEBHOOK_LOG_RETENTION_DAYS ago goes, with its attempts. Pending ones never do.
 * - The event feed: events older than EVENT_RETENTION_DAYS go, oldest first, as a prefix of the
 *   feed, but never one still needed: none past the webhook fan-out's cursor (not yet queued
 *   for every active subscription), none a pending delivery still refers to, and never the
 *   newest (the feed's head, which `after=latest` and new subscriptions start from). The
 *   highest id deleted is kept in `event_pruning.prunedThrough`: a feed cursor below it is
 *   answered `410 cursor_expired` (lib/events/feed.ts) rather than skipping what was deleted.
 *
 * Each batch is one short transaction deleting at most `batch` rows of one table; a pass stops
 * after `maxBatches` batches per table (the rest waits for the next pass). The delivery log is
 * claimed with FOR UPDATE SKIP LOCKED, so servers pruning at once share it; events are pruned
 * by the one server holding the `event_pruning` row (FOR UPDATE SKIP LOCKED), the others skip.
 *
 * Expired SIWE nonces, sessions and rate-limit counters are already pruned where they are
 * written (lib/auth/siwe.ts, lib/auth/session-records.ts, lib/api/rate-limit.ts).
 */

export interface RetentionPolicy {
  /** Events older than this many days are deleted; 0 keeps them for ever. */
  eventDays: number;
  /** Finished deliveries (and their attempts) older than this are deleted; 0: for ever. */
  webhookLogDays: number;
  /** The most rows one statement deletes. */
  batch: number;
  /** The most batches per table in one pass. */
  maxBatches: number;
}

export interface PruneResult {
  events: number;
  deliveries: number;
  attempts: number;
  /** Every event with an id up to this one is deleted (0: none ever). */
  prunedThrough: bigint;
}

/** Rows per statement: small enough that no batch holds its locks for long. */
export const PRUNE_BATCH = 5_000;
/** Batches per table per pass: 100,000 rows; a larger backlog goes over the next passes. */
export const PRUNE_MAX_BATCHES = 20;

export function configuredPolicy(): RetentionPolicy {
  const config = getConfig();
  return {
    eventDays: config.EVENT_RETENTION_DAYS,
    webhookLogDays: config.WEBHOOK_LOG_RETENTION_DAYS,
    batch: PRUNE_BATCH,
    maxBatches: PRUNE_MAX_BATCHES,
  };
}

/** One pass: the delivery log first (its rows refer to events), then the events. */
export async function pruneOnce(db: Db, policy: RetentionPolicy): Promise<PruneResult> {
  const result: PruneResult = { events: 0, deliveries: 0, attempts: 0, prunedThrough: 0n };
  if (policy.webhookLogDays > 0) {
    result.attempts = await repeat(policy, () =>
      pruneWebhookAttempts(db, policy.webhookLogDays, policy.batch),
    );
    result.deliveries = await repeat(policy, () =>
      pruneWebhookDeliveries(db, policy.webhookLogDays, policy.batch),
    );
  }
  if (policy.eventDays > 0) {
    result.events = await repeat(policy, async () => {
      const batch = await pruneEvents(db, policy.eventDays, policy.batch);
      result.prunedThrough = batch.prunedThrough;
      return batch.deleted;
    });
  }
  return result;
}

/** Runs `step` until it deletes less than a full batch, or `maxBatches` times; the sum. */
async function repeat(policy: RetentionPolicy, step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let round = 0; round < policy.maxBatches; round++) {
    const deleted = await step();
    total += deleted;
    if (deleted < policy.batch) break;
  }
  return total;
}

/** The attempts of deliveries that finished more than `days` ago: at most `batch` of them. */
export async function pruneWebhookAttempts(db: Db, days: number, batch: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM "webhook_attempts" WHERE "id" IN (
      SELECT a."id" FROM "webhook_attempts" a
      JOIN "webhook_deliveries" d ON d."id" = a."deliveryId"
      WHERE d."completedAt" < timezone('utc', now()) - make_interval(days => ${days}::int)
        AND d."status" <> 'pending'
      LIMIT ${batch}::int
      FOR UPDATE OF a SKIP LOCKED
    )`;
}

/**
 * Deliveries that finished more than `days` ago and have no attempt left (those went first,
 * in their own batches, so that the cascade never deletes an unbounded number): at most
 * `batch`.
 */
export async function pruneWebhookDeliveries(db: Db, days: number, batch: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM "webhook_deliveries" WHERE "id" IN (
      SELECT d."id" FROM "webhook_deliveries" d
      WHERE d."completedAt" < timezone('utc', now()) - make_interval(days => ${days}::int)
        AND d."status" <> 'pending'
        AND NOT EXISTS (SELECT 1 FROM "webhook_attempts" a WHERE a."deliveryId" = d."id")
      ORDER BY d."completedAt"
      LIMIT ${batch}::int
      FOR UPDATE OF d SKIP LOCKED
    )`;
}

/**
 * At most `batch` of the oldest events, all older than `days` and below every bound a reader
 * of the outbox needs, in one transaction that also records how far pruning has got.
 * Another server pruning right now (holding the `event_pruning` row): nothing, at once.
 */
export async function pruneEvents(
  db: Db,
  days: number,
  batch: number,
): Promise<{ deleted: number; prunedThrough: bigint }> {
  return db.$transaction(async (tx) => {
    const held = await tx.$queryRaw<{ prunedThrough: bigint }[]>`
      SELECT "prunedThrough" FROM "event_pruning" WHERE "id" = 1 FOR UPDATE SKIP LOCKED`;
    const prunedThrough = held[0]?.prunedThrough;
    if (prunedThrough === undefined) return { deleted: 0, prunedThrough: 0n };
    // LEAST ignores NULLs: no pending delivery, no bound from it. The newest event stays.
    const rows = await tx.$queryRaw<{ id: bigint; old: boolean }[]>`
      WITH "bound" AS (
        SELECT LEAST(
          (SELECT "cursor" FROM "webhook_dispatch" WHERE "id" = 1),
          (SELECT min("eventId") - 1 FROM "webhook_deliveries" WHERE "status" = 'pending'),
          (SELECT max("id") - 1 FROM "events")
        ) AS "id"
      )
      SELECT e."id",
        e."createdAt" < timezone('utc', now()) - make_interval(days => ${days}::int) AS "old"
      FROM "events" e, "bound"
      WHERE e."id" <= "bound"."id"
      ORDER BY e."id"
      LIMIT ${batch}::int`;
    // Oldest first, up to the first one still within the retention: the feed loses a prefix.
    const firstKept = rows.findIndex((row) => !row.old);
    const doomed = firstKept === -1 ? rows : rows.slice(0, firstKept);
    const last = doomed.at(-1)?.id;
    if (last === undefined) return { deleted: 0, prunedThrough };
    const deleted = await tx.$executeRaw`DELETE FROM "events" WHERE "id" <= ${last}`;
    await tx.$executeRaw`
      UPDATE "event_pruning" SET "prunedThrough" = ${last}, "updatedAt" = timezone('utc', now())
      WHERE "id" = 1`;
    return { deleted, prunedThrough: last };
  }, WRITE_TRANSACTION);
}

/** The first pass after a start comes within about a minute (before the first interval). */
const FIRST_PASS_MS = 60_000;

/**
 * Every server prunes on its own timer (RETENTION_INTERVAL_SECONDS; 0: never). The first pass
 * comes one to two minutes after the start (jittered, so that servers started together do not
 * all run it at once), not one interval later: servers redeployed more often than the interval
 * still prune.
 */
export function startRetentionWorker(): void {
  const state = globalThis as typeof globalThis & { __retentionWorker?: NodeJS.Timeout };
  const seconds = getConfig().RETENTION_INTERVAL_SECONDS;
  if (state.__retentionWorker || seconds === 0) return;
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      const result = await pruneOnce(await getDb(), configuredPolicy());
      const line = describePrune(result);
      if (line) console.info(line);
    } catch (error) {
      console.error(`Retention: pruning failed: ${errorSummary(error)}`);
    } finally {
      running = false;
    }
  };
  const firstMs = Math.min(seconds * 1000, FIRST_PASS_MS * (1 + Math.random()));
  state.__retentionWorker = setTimeout(() => {
    void pass();
    state.__retentionWorker = setInterval(() => void pass(), seconds * 1000);
    state.__retentionWorker.unref();
  }, firstMs);
  state.__retentionWorker.unref();
}

/** The log line of a pass that deleted something; undefined when it deleted nothing. */
export function describePrune(result: PruneResult): string | undefined {
  if (result.events + result.deliveries + result.attempts === 0) return undefined;
  return (
    `Retention: deleted ${result.events} events` +
    (result.events > 0 ? ` (every id up to ${result.prunedThrough})` : "") +
    `, ${result.deliveries} webhook deliveries and ${result.attempts} delivery attempts`
  );
}
