// The retention pass as the production server runs it (instrumentation.ts, its own timer) on
// PostgreSQL, with rows written beside it: old events and an old finished delivery log go,
// the pass says so in the server's log, and the feed over HTTP starts at the oldest event
// kept and answers a cursor into the deleted range with 410 cursor_expired.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenDatabase, openDatabase } from "@/lib/db/client";
import { resolveDbTarget } from "@/lib/db/target";
import { ApiClient } from "@/tests/helpers/api";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import { failOnServerErrors } from "@/tests/helpers/server-logs";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

failOnServerErrors();

const OWNER = "0x1111111111111111111111111111111111111111";
const DAY_MS = 86_400_000;

describe.runIf(TEST_DATABASE_URL)("retention in the running server (PostgreSQL)", () => {
  let database: OpenDatabase;
  let server: RunningServer;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const prepared = await prepareServerDatabase("postgres");
    cleanup = prepared.cleanup;
    database = await openDatabase(resolveDbTarget(prepared.env));
    const { db } = database;
    // Ten events from 40 days ago, two from today (the ids the sequence hands out next: 13).
    await db.$executeRaw`
      INSERT INTO "events" ("id", "type", "jobId", "category", "actors", "data", "createdAt")
      SELECT g, 'job.created', 'job_' || g, 'research'::"Category", ARRAY[]::text[],
        jsonb_build_object('jobId', 'job_' || g, 'jobStatus', 'open', 'category', 'research',
        'posterAddress', ${OWNER}::text),
        timezone('utc', now()) - make_interval(days => CASE WHEN g <= 10 THEN 40 ELSE 0 END)
      FROM generate_series(1, 12) AS g`;
    await db.$executeRaw`SELECT setval(pg_get_serial_sequence('"events"', 'id'), 12)`;
    // A disabled webhook's delivery that failed 20 days ago, with its two attempts.
    await db.wallet.create({ data: { address: OWNER } });
    await db.webhookSubscription.create({
      data: {
        id: "wh_old",
        ownerAddress: OWNER,
        url: "https://hooks.example/in",
        types: [],
        categories: [],
        secret: "whsec_c2VjcmV0",
        status: "disabled",
        startAfterEventId: 0n,
      },
    });
    const long = new Date(Date.now() - 20 * DAY_MS);
    await db.webhookDelivery.create({
      data: {
        id: "whd_old",
        subscriptionId: "wh_old",
        eventId: 3n,
        messageId: "evt_3",
        type: "job.created",
        payload: "{}",
        status: "failed",
        attempts: 2,
        nextAttemptAt: long,
        createdAt: long,
        completedAt: long,
        attemptLog: {
          create: [1, 2].map((attempt) => ({ attempt, startedAt: long, durationMs: 5 })),
        },
      },
    });
    server = await startServer({ ...prepared.env, RETENTION_INTERVAL_SECONDS: "1" });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.close();
    await cleanup?.();
  });

  it("prunes on its own timer, logs it, and the feed answers past it as documented", async () => {
    // The log is pruned first (it needs no fan-out); the events once the webhook worker's
    // cursor has passed them (its first pass, a second or so after the start).
    const events = /Retention: deleted 10 events \(every id up to 10\)/;
    const log = /Retention: deleted \d+ events.*, 1 webhook deliveries and 2 delivery attempts/;
    for (let i = 0; i < 60 && !(events.test(server.logs()) && log.test(server.logs())); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(server.logs()).toMatch(events);
    expect(server.logs()).toMatch(log);
    const { db } = database;
    expect((await db.event.findMany({ orderBy: { id: "asc" } })).map((row) => row.id)).toEqual([
      11n,
      12n,
    ]);
    expect(await db.webhookDelivery.count()).toBe(0);
    expect(await db.webhookAttempt.count()).toBe(0);

    const client = new ApiClient(server.url);
    const fromStart = await client.get("/api/v1/events?after=0");
    expect(fromStart.status).toBe(200);
    expect(fromStart.body).toMatchObject({
      data: [{ id: "11" }, { id: "12" }],
      meta: { nextCursor: "12", hasMore: false },
    });
    expect((await client.get("/api/v1/events?after=10")).body).toMatchObject({
      data: [{ id: "11" }, { id: "12" }],
    });
    const expired = await client.get("/api/v1/events?after=4&types=job.created");
    expect(expired.status).toBe(410);
    expect(expired.body).toEqual({
      error:
        "the events after 4 were deleted (the feed keeps 30 days of events): re-read what you " +
        "follow, then continue with after=10 (the oldest kept) or after=latest",
      code: "cursor_expired",
    });
    expect((await client.get("/api/v1/events?after=latest")).body).toMatchObject({
      data: [],
      meta: { nextCursor: "12" },
    });
  });
});
