// Retention on PGlite and PostgreSQL: old finished webhook deliveries go with their attempts,
// events older than the retention go oldest first but never one the webhooks still need, every
// statement deletes at most a batch, and the feed answers a cursor into the deleted range with
// 410 cursor_expired while after=0 starts at the oldest event kept.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db";
import { DomainError } from "@/lib/platform/errors";
import { listEventsQuerySchema } from "@/lib/shared/schemas/events";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { feedHead, listEvents } from "./feed";
import {
  describePrune,
  pruneEvents,
  pruneOnce,
  pruneWebhookAttempts,
  pruneWebhookDeliveries,
  type RetentionPolicy,
} from "./retention";

const OWNER = "0x1111111111111111111111111111111111111111";
const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);
const policy = (overrides: Partial<RetentionPolicy> = {}): RetentionPolicy => ({
  eventDays: 30,
  webhookLogDays: 7,
  batch: 5_000,
  maxBatches: 20,
  ...overrides,
});

/** Events `from`..`to` (ids given), written `age` days ago. */
async function seedEvents(db: Db, from: number, to: number, age: number) {
  await db.$executeRaw`
    INSERT INTO "events" ("id", "type", "jobId", "category", "actors", "data", "createdAt")
    SELECT g, 'job.created', 'job_' || g, 'research'::"Category", ARRAY[]::text[],
      jsonb_build_object('jobId', 'job_' || g, 'jobStatus', 'open', 'category', 'research',
        'posterAddress', ${OWNER}::text),
      timezone('utc', now()) - make_interval(days => ${age}::int)
    FROM generate_series(${from}::bigint, ${to}::bigint) AS g`;
}

async function setDispatchCursor(db: Db, cursor: number) {
  await db.webhookDispatchCursor.update({ where: { id: 1 }, data: { cursor: BigInt(cursor) } });
}

const eventIds = async (db: Db) =>
  (await db.event.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((row) =>
    Number(row.id),
  );

let deliverySeq = 0;
/** A delivery of `eventId` (or a test message) with `attempts` attempt rows. */
async function seedDelivery(
  db: Db,
  options: {
    eventId?: number;
    status: "pending" | "succeeded" | "failed" | "cancelled";
    completedDaysAgo?: number;
    attempts: number;
  },
): Promise<string> {
  const id = `whd_t${++deliverySeq}`;
  await db.webhookDelivery.create({
    data: {
      id,
      subscriptionId: "wh_retention",
      eventId: options.eventId === undefined ? null : BigInt(options.eventId),
      messageId: options.eventId === undefined ? `msg_${id}` : `evt_${options.eventId}`,
      type: options.eventId === undefined ? "webhook.test" : "job.created",
      payload: "{}",
      status: options.status,
      attempts: options.attempts,
      nextAttemptAt: daysAgo(40),
      createdAt: daysAgo(40),
      completedAt:
        options.completedDaysAgo === undefined ? null : daysAgo(options.completedDaysAgo),
    },
  });
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    await db.webhookAttempt.create({
      data: { deliveryId: id, attempt, startedAt: daysAgo(40), durationMs: 5, statusCode: 500 },
    });
  }
  return id;
}

const feed = (db: Db, query: Record<string, string> = {}) =>
  listEvents(db, listEventsQuerySchema.parse(query));

describe.each(DB_KINDS)("retention on %s", (kind) => {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    db = database.db;
    await db.wallet.create({ data: { address: OWNER } });
  });
  afterAll(() => database?.close());
  beforeEach(async () => {
    await db.$executeRaw`TRUNCATE "webhook_attempts", "webhook_deliveries", "webhook_subscriptions", "events"`;
    await db.$executeRaw`UPDATE "event_pruning" SET "prunedThrough" = 0`;
    await setDispatchCursor(db, 0);
    await db.webhookSubscription.create({
      data: {
        id: "wh_retention",
        ownerAddress: OWNER,
        url: "https://hooks.example/in",
        types: [],
        categories: [],
        secret: "whsec_c2VjcmV0",
        startAfterEventId: 0n,
      },
    });
  });

  it("deletes finished deliveries past the retention with their attempts, and nothing else", async () => {
    await seedEvents(db, 1, 10, 1);
    await setDispatchCursor(db, 10);
    const oldDone = [
      await seedDelivery(db, { eventId: 1, status: "succeeded", completedDaysAgo: 8, attempts: 1 }),
      await seedDelivery(db, { eventId: 2, status: "failed", completedDaysAgo: 20, attempts: 13 }),
      await seedDelivery(db, { eventId: 3, status: "cancelled", completedDaysAgo: 9, attempts: 2 }),
      await seedDelivery(db, { status: "failed", completedDaysAgo: 30, attempts: 1 }),
    ];
    const kept = [
      await seedDelivery(db, { eventId: 4, status: "succeeded", completedDaysAgo: 6, attempts: 1 }),
      // Pending since long ago (a worker that was stopped): never deleted.
      await seedDelivery(db, { eventId: 5, status: "pending", attempts: 3 }),
    ];
    const result = await pruneOnce(db, policy());
    expect(result).toMatchObject({ deliveries: 4, attempts: 17, events: 0 });
    const left = await db.webhookDelivery.findMany({
      select: { id: true },
      orderBy: { id: "asc" },
    });
    expect(left.map((row) => row.id)).toEqual([...kept].sort());
    expect(await db.webhookAttempt.count()).toBe(4);
    expect(await db.webhookAttempt.count({ where: { deliveryId: { in: oldDone } } })).toBe(0);
    expect(describePrune(result)).toBe(
      "Retention: deleted 0 events, 4 webhook deliveries and 17 delivery attempts",
    );
    // Recent events stay; a second pass finds nothing.
    expect(await eventIds(db)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(describePrune(await pruneOnce(db, policy()))).toBeUndefined();
  });

  it("deletes old events oldest first, up to the first the webhooks still need", async () => {
    await seedEvents(db, 1, 10, 40);
    await seedEvents(db, 11, 14, 2);
    // Fanned out up to 8 only: 9 and 10 are still to be queued for the subscriptions.
    await setDispatchCursor(db, 8);
    // 6 is queued and not delivered yet.
    await seedDelivery(db, { eventId: 6, status: "pending", attempts: 1 });
    // 3 was delivered recently: the event may go, its log row stays (its eventId emptied).
    const delivered = await seedDelivery(db, {
      eventId: 3,
      status: "succeeded",
      completedDaysAgo: 1,
      attempts: 1,
    });
    expect((await pruneOnce(db, policy())).events).toBe(5);
    expect(await eventIds(db)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(await db.eventPruning.findUnique({ where: { id: 1 } })).toMatchObject({
      prunedThrough: 5n,
    });
    expect(await db.webhookDelivery.findUniqueOrThrow({ where: { id: delivered } })).toMatchObject({
      eventId: null,
      status: "succeeded",
    });

    // Delivered at last: up to the dispatch cursor.
    await db.webhookDelivery.updateMany({
      where: { eventId: 6n },
      data: { status: "succeeded", completedAt: new Date() },
    });
    expect((await pruneOnce(db, policy())).events).toBe(3);
    expect(await eventIds(db)).toEqual([9, 10, 11, 12, 13, 14]);

    // Fanned out: up to the first event within the retention (11), never past it.
    await setDispatchCursor(db, 14);
    const result = await pruneOnce(db, policy());
    expect(result).toMatchObject({ events: 2, prunedThrough: 10n });
    expect(describePrune(result)).toBe(
      "Retention: deleted 2 events (every id up to 10), 0 webhook deliveries and 0 delivery attempts",
    );
    expect(await eventIds(db)).toEqual([11, 12, 13, 14]);
  });

  it("keeps the newest event, so that the feed's head never goes back", async () => {
    await seedEvents(db, 1, 4, 40);
    await setDispatchCursor(db, 4);
    expect((await pruneOnce(db, policy())).events).toBe(3);
    expect(await eventIds(db)).toEqual([4]);
    expect(await feedHead(db)).toBe(4n);
    expect(await feed(db, { after: "latest" })).toMatchObject({ nextCursor: "4" });
  });

  it("keeps everything with a retention of 0 days", async () => {
    await seedEvents(db, 1, 5, 400);
    await setDispatchCursor(db, 5);
    await seedDelivery(db, { eventId: 1, status: "failed", completedDaysAgo: 300, attempts: 2 });
    const result = await pruneOnce(db, policy({ eventDays: 0, webhookLogDays: 0 }));
    expect(result).toEqual({ events: 0, deliveries: 0, attempts: 0, prunedThrough: 0n });
    expect(await eventIds(db)).toEqual([1, 2, 3, 4, 5]);
    expect(await db.webhookAttempt.count()).toBe(2);
  });

  it("deletes at most a batch per statement and a bounded number of batches per pass", async () => {
    await seedEvents(db, 1, 20, 40);
    await setDispatchCursor(db, 20);
    for (let i = 0; i < 5; i++) {
      await seedDelivery(db, { status: "failed", completedDaysAgo: 10, attempts: 3 });
    }
    // One statement each: a batch of 4.
    expect(await pruneWebhookAttempts(db, 7, 4)).toBe(4);
    expect(await pruneWebhookDeliveries(db, 7, 4)).toBeLessThanOrEqual(4);
    expect(await pruneEvents(db, 30, 4)).toEqual({ deleted: 4, prunedThrough: 4n });
    // A pass of at most 2 batches of 3 per table: 6 rows of each, the rest next time.
    const first = await pruneOnce(db, policy({ batch: 3, maxBatches: 2 }));
    expect(first.events).toBe(6);
    expect(first.attempts).toBe(6);
    expect(first.deliveries).toBeLessThanOrEqual(6);
    expect(await eventIds(db)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    // Passes go on until only what must stay is left.
    for (let pass = 0; pass < 10; pass++) await pruneOnce(db, policy({ batch: 3, maxBatches: 2 }));
    expect(await eventIds(db)).toEqual([20]);
    expect(await db.webhookDelivery.count()).toBe(0);
    expect(await db.webhookAttempt.count()).toBe(0);
  });

  it("the feed: after=0 starts at the oldest kept, a cursor into the deleted range is 410", async () => {
    await seedEvents(db, 1, 10, 40);
    await seedEvents(db, 11, 12, 1);
    await setDispatchCursor(db, 12);
    // A reader that had seen up to 3, and one that is caught up, before pruning.
    const caughtUp = await feed(db, { after: "0", limit: "100" });
    expect(caughtUp.nextCursor).toBe("12");
    await pruneOnce(db, policy());
    expect(await eventIds(db)).toEqual([11, 12]);

    const fromStart = await feed(db, { after: "0" });
    expect(fromStart.items.map((event) => event.id)).toEqual(["11", "12"]);
    const fromMark = await feed(db, { after: "10" });
    expect(fromMark.items.map((event) => event.id)).toEqual(["11", "12"]);
    expect(await feed(db, { after: caughtUp.nextCursor })).toMatchObject({
      items: [],
      nextCursor: "12",
    });

    for (const after of ["3", "9"]) {
      const refusal = await feed(db, { after }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(DomainError);
      expect(refusal).toMatchObject({ status: 410, code: "cursor_expired" });
      expect((refusal as Error).message).toBe(
        `the events after ${after} were deleted (the feed keeps 30 days of events): re-read ` +
          "what you follow, then continue with after=10 (the oldest kept) or after=latest",
      );
    }
    // Filters change nothing: the events after 5 are gone whatever was asked for.
    await expect(feed(db, { after: "5", types: "review.created" })).rejects.toMatchObject({
      code: "cursor_expired",
    });
  });
});

describe.runIf(DB_KINDS.includes("postgres"))("several servers pruning at once", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase("postgres");
  });
  afterAll(() => database?.close());

  it("skip what another holds instead of waiting for it", async () => {
    const { db } = database;
    await seedEvents(db, 1, 6, 40);
    await setDispatchCursor(db, 6);
    await db.$transaction(async (tx) => {
      // Another server is pruning events: this one skips them at once.
      await tx.$queryRaw`SELECT 1 FROM "event_pruning" WHERE "id" = 1 FOR UPDATE`;
      expect(await pruneEvents(db, 30, 100)).toEqual({ deleted: 0, prunedThrough: 0n });
    });
    expect(await pruneEvents(db, 30, 100)).toEqual({ deleted: 5, prunedThrough: 5n });
  });
});
