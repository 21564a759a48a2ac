import { type Db, getDb } from "@/lib/db";
import { WRITE_TRANSACTION } from "@/lib/db/transaction-budget";
import { startBackgroundLoop } from "@/lib/platform/background-loop";
import { getConfig } from "@/lib/platform/config";
import { describeUnavailable, isUnavailableError, logOutage } from "@/lib/platform/unavailable";
import type { Event, WebhookDelivery, WebhookSubscription } from "@/lib/generated/prisma/client";
import { newId } from "@/lib/kernel/ids";
import { toEventView } from "./feed";
import { webhookPolicy } from "./outbound";
import { type AttemptResult, sendWebhook } from "./webhook-http";

/**
 * Webhook delivery, run by every server (an in-process timer, like the settlement
 * reconciler), safe with any number of servers on one database:
 *
 * 1. Fan-out: the one server holding the `webhook_dispatch` row (FOR UPDATE SKIP LOCKED; the
 *    others skip this step) reads the events after its cursor, inserts one delivery row per
 *    (event, matching active subscription) and moves the cursor, in one transaction. The feed
 *    is in commit order, so the cursor never passes an event that commits later; the unique
 *    (subscription, event) key makes a repeat harmless.
 * 2. Sending: due rows are claimed with FOR UPDATE SKIP LOCKED in one UPDATE that counts the
 *    attempt and pushes `nextAttemptAt` past the request's deadline (a lease): no other server
 *    takes the row while it is in flight; if this server dies, the row is due again when the
 *    lease ends. The outcome is recorded only by the claim that made it (fenced by `attempts`).
 * 3. Retries: after the n-th failed attempt, the next comes WEBHOOK_RETRY_BASE_SECONDS × 2^(n-1)
 *    later (±10 % jitter), the last one exactly when WEBHOOK_RETRY_WINDOW_SECONDS (24 h) have
 *    passed since the message was due; if that fails too, the message is `failed` and its
 *    subscription is disabled (its other pending messages are cancelled).
 */

export const TEST_EVENT_TYPE = "webhook.test";
/** Due deliveries claimed per pass, and sent at once. */
const CLAIM_BATCH = 20;
const PARALLEL_SENDS = 8;
const DISPATCH_BATCH = 500;

export interface WorkerPass {
  dispatched: number;
  attempted: number;
}

/** One pass: fan new events out, then send what is due. */
export async function runWebhookWorkerOnce(db: Db): Promise<WorkerPass> {
  let dispatched = 0;
  for (let round = 0; round < 10; round++) {
    const count = await dispatchEvents(db, DISPATCH_BATCH);
    dispatched += count;
    if (count < DISPATCH_BATCH) break;
  }
  const attempted = await sendDueDeliveries(db);
  return { dispatched, attempted };
}

/** The body every endpoint receives for an event (Standard Webhooks' type/timestamp/data). */
export function eventMessageBody(event: Event): string {
  const view = toEventView(event);
  return JSON.stringify({
    type: view.type,
    timestamp: view.createdAt,
    data: { eventId: view.id, ...view.data },
  });
}

export function subscriptionMatches(
  subscription: Pick<WebhookSubscription, "types" | "categories" | "startAfterEventId">,
  event: Pick<Event, "id" | "type" | "category">,
): boolean {
  if (event.id <= subscription.startAfterEventId) return false;
  if (subscription.types.length > 0 && !subscription.types.includes(event.type)) return false;
  if (subscription.categories.length === 0) return true;
  return event.category !== null && subscription.categories.includes(event.category);
}

/** Step 1: fans out up to `batch` events past the shared cursor; returns how many. */
export async function dispatchEvents(db: Db, batch = DISPATCH_BATCH): Promise<number> {
  return db.$transaction(async (tx) => {
    const held = await tx.$queryRaw<{ cursor: bigint }[]>`
      SELECT "cursor" FROM "webhook_dispatch" WHERE "id" = 1 FOR UPDATE SKIP LOCKED`;
    const cursor = held[0]?.cursor;
    if (cursor === undefined) return 0; // another server is fanning out right now
    const events = await tx.event.findMany({
      where: { id: { gt: cursor } },
      orderBy: { id: "asc" },
      take: batch,
    });
    const last = events.at(-1);
    if (!last) return 0;
    const subscriptions = await tx.webhookSubscription.findMany({
      where: { status: "active", startAfterEventId: { lt: last.id } },
      select: { id: true, types: true, categories: true, startAfterEventId: true },
    });
    const now = new Date();
    const rows = events.flatMap((event, index) =>
      subscriptions
        .filter((subscription) => subscriptionMatches(subscription, event))
        .map((subscription) => ({
          id: newId("whd"),
          subscriptionId: subscription.id,
          eventId: event.id,
          messageId: `evt_${event.id}`,
          type: event.type,
          payload: eventMessageBody(event),
          nextAttemptAt: now,
          // The delivery log lists by createdAt: keep the feed's order within one pass.
          createdAt: new Date(now.getTime() + index),
        })),
    );
    if (rows.length > 0) await tx.webhookDelivery.createMany({ data: rows, skipDuplicates: true });
    await tx.webhookDispatchCursor.update({
      where: { id: 1 },
      data: { cursor: last.id, updatedAt: now },
    });
    return events.length;
  }, WRITE_TRANSACTION);
}

/**
 * How long a claimed delivery is kept from other servers: long enough for the whole claimed
 * batch to be sent (PARALLEL_SENDS at a time, each within its deadline) and a margin. Each
 * attempt also re-reads its row first and goes ahead only if the claim is still its own.
 */
export function leaseSeconds(): number {
  const rounds = Math.ceil(CLAIM_BATCH / PARALLEL_SENDS);
  return rounds * getConfig().WEBHOOK_TIMEOUT_SECONDS + 30;
}

/** Step 2: claims due deliveries (SKIP LOCKED) and sends them; returns how many. */
export async function sendDueDeliveries(db: Db): Promise<number> {
  const claimed = await db.$queryRaw<{ id: string; attempts: number }[]>`
    UPDATE "webhook_deliveries" SET
      "attempts" = "attempts" + 1,
      "nextAttemptAt" = timezone('utc', now()) + make_interval(secs => ${leaseSeconds()}),
      "lastAttemptAt" = timezone('utc', now())
    WHERE "id" IN (
      SELECT "id" FROM "webhook_deliveries"
      WHERE "status" = 'pending' AND "nextAttemptAt" <= timezone('utc', now())
      ORDER BY "nextAttemptAt"
      LIMIT ${CLAIM_BATCH}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING "id", "attempts"`;
  const queue = [...claimed];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        await attemptClaimed(db, next.id, next.attempts);
      } catch (error) {
        // Its lease ends and it is due again: a database outage delays it, loses nothing.
        if (isUnavailableError(error)) {
          logOutage(
            "webhook delivery",
            `${next.id}: ${describeUnavailable(error)}; tried again later`,
          );
        } else console.error(`Webhook delivery ${next.id}:`, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_SENDS, queue.length) }, worker));
  return claimed.length;
}

/** Sends one claimed delivery and records the outcome (only if the claim is still ours). */
export async function attemptClaimed(
  db: Db,
  deliveryId: string,
  attempt: number,
): Promise<WebhookDelivery | null> {
  const delivery = await db.webhookDelivery.findUnique({
    where: { id: deliveryId },
    include: { subscription: true },
  });
  if (!delivery || delivery.status !== "pending" || delivery.attempts !== attempt) return null;
  const isTest = delivery.type === TEST_EVENT_TYPE;
  if (delivery.subscription.status !== "active" && !isTest) {
    await db.webhookDelivery.updateMany({
      where: { id: deliveryId, status: "pending" },
      data: { status: "cancelled", completedAt: new Date(), lastError: "the webhook is disabled" },
    });
    return null;
  }
  const config = getConfig();
  const result = await sendWebhook(
    { url: delivery.subscription.url, secret: delivery.subscription.secret },
    { id: delivery.messageId, body: delivery.payload },
    { policy: webhookPolicy(), timeoutMs: config.WEBHOOK_TIMEOUT_SECONDS * 1000 },
  );
  return recordAttempt(db, delivery, attempt, result);
}

async function recordAttempt(
  db: Db,
  delivery: WebhookDelivery & { subscription: WebhookSubscription },
  attempt: number,
  result: AttemptResult,
): Promise<WebhookDelivery | null> {
  const config = getConfig();
  const now = new Date();
  const isTest = delivery.type === TEST_EVENT_TYPE;
  // A test message is tried once; an event until its retry window has passed.
  const next =
    result.ok || isTest
      ? null
      : nextAttemptAt({
          failedAttempts: attempt,
          dueSince: delivery.createdAt,
          now,
          baseSeconds: config.WEBHOOK_RETRY_BASE_SECONDS,
          windowSeconds: config.WEBHOOK_RETRY_WINDOW_SECONDS,
        });
  const outcome = {
    lastStatusCode: result.statusCode,
    lastError: result.error,
    ...(result.ok
      ? { status: "succeeded" as const, completedAt: now }
      : next
        ? { nextAttemptAt: next }
        : { status: "failed" as const, completedAt: now }),
  };
  return db.$transaction(async (tx) => {
    const { count } = await tx.webhookDelivery.updateMany({
      where: { id: delivery.id, status: "pending", attempts: attempt },
      data: outcome,
    });
    if (count !== 1) return null; // the claim lapsed and another attempt took over
    await tx.webhookAttempt.create({
      data: {
        deliveryId: delivery.id,
        attempt,
        startedAt: result.startedAt,
        durationMs: result.durationMs,
        statusCode: result.statusCode,
        error: result.error,
        responseExcerpt: result.responseExcerpt,
      },
    });
    if (!result.ok && !next && !isTest) {
      const disabled = await tx.webhookSubscription.updateMany({
        where: { id: delivery.subscriptionId, status: "active" },
        data: {
          status: "disabled",
          disabledAt: now,
          disabledReason:
            `message ${delivery.messageId} failed for ${duration(config.WEBHOOK_RETRY_WINDOW_SECONDS)} ` +
            `(${attempt} attempts; last: ${result.error ?? "no answer"})`,
          updatedAt: now,
        },
      });
      if (disabled.count === 1) {
        await tx.webhookDelivery.updateMany({
          where: { subscriptionId: delivery.subscriptionId, status: "pending" },
          data: { status: "cancelled", completedAt: now, lastError: "the webhook was disabled" },
        });
        console.warn(`Webhook ${delivery.subscriptionId} disabled after repeated failures`);
      }
    }
    return tx.webhookDelivery.findUnique({ where: { id: delivery.id } });
  }, WRITE_TRANSACTION);
}

/**
 * When to try again after `failedAttempts` failures of a message due since `dueSince`:
 * base × 2^(failedAttempts-1) seconds from now (±10 % jitter), never later than the end of
 * the retry window; null once the window has ended (give up).
 */
export function nextAttemptAt(input: {
  failedAttempts: number;
  dueSince: Date;
  now: Date;
  baseSeconds: number;
  windowSeconds: number;
  jitter?: number;
}): Date | null {
  const end = input.dueSince.getTime() + input.windowSeconds * 1000;
  if (input.now.getTime() >= end) return null;
  const jitter = input.jitter ?? 0.9 + Math.random() * 0.2;
  const delayMs = input.baseSeconds * 1000 * 2 ** (input.failedAttempts - 1) * jitter;
  return new Date(Math.min(input.now.getTime() + delayMs, end));
}

function duration(seconds: number): string {
  if (seconds >= 3600) return `${Math.round((seconds / 3600) * 10) / 10} h`;
  if (seconds >= 60) return `${Math.round((seconds / 60) * 10) / 10} min`;
  return `${Math.round(seconds * 10) / 10} s`;
}

/**
 * Every server runs one webhook worker (WEBHOOK_WORKER_INTERVAL_MS; 0: none). While the
 * database is down its passes back off and it logs one line, then goes on by itself.
 */
export function startWebhookWorker(): void {
  const state = globalThis as typeof globalThis & { __webhookWorker?: NodeJS.Timeout };
  const interval = getConfig().WEBHOOK_WORKER_INTERVAL_MS;
  if (state.__webhookWorker || interval === 0) return;
  state.__webhookWorker = startBackgroundLoop("Webhook worker", interval, async () =>
    runWebhookWorkerOnce(await getDb()),
  );
}
