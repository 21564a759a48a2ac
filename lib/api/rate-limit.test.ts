// Both rate-limit stores against real servers: the database store on PGlite and PostgreSQL
// (TEST_DATABASE_URL), the Redis store on Redis (TEST_REDIS_URL). Each counts exactly under
// concurrency, shares its counts between separate clients (as separate server processes
// would), restarts a window once it ends, and leaves nothing behind.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db";
import { openDatabase } from "@/lib/db/client";
import {
  createTestDatabase,
  DB_KINDS,
  TEST_REDIS_URL,
  type TestDatabase,
} from "@/tests/helpers/db";
import {
  checkRateLimit,
  LocalFirstLimiter,
  PostgresRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
} from "./rate-limit";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface StoreSetup {
  name: string;
  /** Two stores on one backing server, as two server processes would hold them. */
  open(): Promise<{ a: RateLimitStore; b: RateLimitStore; rows(): Promise<number> }>;
  close(): Promise<void>;
}

const setups: StoreSetup[] = DB_KINDS.map((kind) => {
  let database: TestDatabase | undefined;
  let second: { db: Db; close(): Promise<void> } | undefined;
  return {
    name: `database store on ${kind}`,
    async open() {
      database = await createTestDatabase(kind);
      // PGlite is one process's database; on PostgreSQL a second client is a second server.
      second =
        kind === "postgres"
          ? await openDatabase({
              kind: "postgres",
              connectionString: postgresUrl(database.databaseUrl!),
              schema: new URL(database.databaseUrl!).searchParams.get("schema")!,
            })
          : undefined;
      const db = database.db;
      return {
        a: new PostgresRateLimitStore(async () => db),
        b: new PostgresRateLimitStore(async () => second?.db ?? db),
        rows: async () => Number((await db.rateLimitCounter.count()) as number),
      };
    },
    async close() {
      await second?.close();
      await database?.close();
    },
  };
});

const redisUrl = TEST_REDIS_URL;
if (redisUrl) {
  const prefix = `test-${randomBytes(4).toString("hex")}:`;
  const stores: RedisRateLimitStore[] = [];
  const admin = () => new Redis(redisUrl);
  setups.push({
    name: "Redis store",
    async open() {
      stores.push(new RedisRateLimitStore(redisUrl, prefix));
      stores.push(new RedisRateLimitStore(redisUrl, prefix));
      return {
        a: stores[0]!,
        b: stores[1]!,
        rows: async () => {
          const redis = admin();
          try {
            return (await redis.keys(`${prefix}*`)).length;
          } finally {
            redis.disconnect();
          }
        },
      };
    },
    async close() {
      await Promise.all(stores.map((store) => store.close()));
    },
  });
}

function postgresUrl(databaseUrl: string) {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema")!;
  url.searchParams.delete("schema");
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.toString();
}

describe.each(setups)("$name", (setup) => {
  let stores: Awaited<ReturnType<StoreSetup["open"]>>;
  beforeAll(async () => {
    stores = await setup.open();
  });
  afterAll(() => setup.close());

  it("counts hits in a window and says when it ends", async () => {
    const key = `k-${randomBytes(4).toString("hex")}`;
    const before = Date.now();
    const first = await stores.a.hit(key, 60_000);
    const second = await stores.a.hit(key, 60_000);
    expect([first.count, second.count]).toEqual([1, 2]);
    expect(first.resetAt).toBeGreaterThan(before + 55_000);
    expect(first.resetAt).toBeLessThanOrEqual(Date.now() + 60_000 + 50);
    expect(Math.abs(second.resetAt - first.resetAt)).toBeLessThan(1_000);
  });

  it("counts 50 concurrent hits from two clients exactly once each", async () => {
    const key = `race-${randomBytes(4).toString("hex")}`;
    const hits = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? stores.a : stores.b).hit(key, 60_000)),
    );
    expect(hits.map((hit) => hit.count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  it("starts a new window once the old one ended", async () => {
    const key = `win-${randomBytes(4).toString("hex")}`;
    await stores.a.hit(key, 300);
    expect((await stores.b.hit(key, 300)).count).toBe(2);
    await sleep(450);
    const fresh = await stores.a.hit(key, 300);
    expect(fresh.count).toBe(1);
    expect(fresh.resetAt).toBeGreaterThan(Date.now());
  });

  it("refuses past the limit with a Retry-After from the window's end", async () => {
    const key = `limit-${randomBytes(4).toString("hex")}`;
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await checkRateLimit(stores.a, [key], 3));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[3]!.retryAfterSeconds).toBeGreaterThan(50);
    expect(decisions[3]!.retryAfterSeconds).toBeLessThanOrEqual(60);
    // Any key over its limit refuses; the others still count.
    const other = `other-${randomBytes(4).toString("hex")}`;
    expect((await checkRateLimit(stores.b, [other, key], 3)).allowed).toBe(false);
    expect((await stores.a.hit(other, 60_000)).count).toBe(2);
  });

  it("counts several hits at once (by)", async () => {
    const key = `by-${randomBytes(4).toString("hex")}`;
    expect((await stores.a.hit(key, 60_000, 7)).count).toBe(7);
    expect((await stores.b.hit(key, 60_000, 5)).count).toBe(12);
    expect((await stores.a.hit(key, 60_000)).count).toBe(13);
  });

  it("reads: decided in memory, exactly at the limit in one process, shared through the store", async () => {
    const key = `read-${randomBytes(4).toString("hex")}`;
    const one = new LocalFirstLimiter(() => stores.a);
    const two = new LocalFirstLimiter(() => stores.b);
    const allowed = (limiter: LocalFirstLimiter, n: number) =>
      Array.from({ length: n }, () => limiter.check([key], 10).allowed);
    // One process alone refuses the 11th at once, before anything reached the store.
    expect(allowed(one, 11)).toEqual([...Array(10).fill(true), false]);
    await one.sync();
    expect((await stores.a.hit(key, 60_000, 0)).count).toBe(11);
    // Another process learns the shared count on its next sync and refuses from then on.
    expect(two.check([key], 10).allowed).toBe(true);
    await two.sync();
    const refused = two.check([key], 10);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThan(50);
    // Other keys are their own.
    expect(two.check([`${key}-other`], 10).allowed).toBe(true);
  });

  it("reads: past its bound on keys, drops the window started longest ago", async () => {
    const id = randomBytes(4).toString("hex");
    const [a, b, c] = ["a", "b", "c"].map((name) => `bound-${name}-${id}`) as [
      string,
      string,
      string,
    ];
    const full = new LocalFirstLimiter(() => stores.a, 60_000, 2);
    expect([a, a, b].map((key) => full.check([key], 1).allowed)).toEqual([true, false, true]);
    // c's window drops a's, the oldest: a counts from nothing again (its hits never reached
    // the store, which a sync would have told every process).
    expect(full.check([c], 1).allowed).toBe(true);
    expect(full.check([a], 1).allowed).toBe(true);
    expect(full.check([c], 1).allowed).toBe(false);

    // A window that ends and starts again is the newest: c's arrival then drops b's, not a's.
    const renewed = new LocalFirstLimiter(() => stores.a, 100, 2);
    expect([a, b].map((key) => renewed.check([`${key}-r`], 1).allowed)).toEqual([true, true]);
    await sleep(150);
    expect(renewed.check([`${a}-r`], 1).allowed).toBe(true);
    expect(renewed.check([`${c}-r`], 1).allowed).toBe(true);
    expect(renewed.check([`${a}-r`], 1).allowed).toBe(false);
  });

  it("removes ended windows", async () => {
    const key = `gone-${randomBytes(4).toString("hex")}`;
    await stores.a.hit(key, 200);
    await sleep(1_300);
    if (stores.a instanceof PostgresRateLimitStore) {
      const live = `live-${randomBytes(4).toString("hex")}`;
      await stores.a.hit(live, 60_000);
      const before = await stores.rows();
      expect(await stores.a.prune()).toBeGreaterThanOrEqual(1);
      expect(await stores.rows()).toBeLessThan(before);
      expect((await stores.a.hit(live, 60_000)).count).toBe(2);
    }
    // Redis expires keys itself; the database store deletes them in prune().
    expect((await stores.b.hit(key, 60_000)).count).toBe(1);
  });
});
