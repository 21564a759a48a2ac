import { Redis } from "ioredis";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db";
import type { Db } from "@/lib/db";

/**
 * Fixed-window rate limiting behind one interface. The counters live where every server
 * process sees them, so N servers never give N times the limit: in the database by default
 * (one upsert per hit, on PostgreSQL or the embedded PGlite), in Redis when REDIS_URL is set
 * (one atomic script per hit). Windows are timed by the store's own clock, never by the
 * servers', so servers with drifting clocks agree.
 */
export interface RateLimitStore {
  /** Counts one hit for `key`; returns the hits in the current window and when it ends. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
}

/** How often a process deletes expired counter rows (at most). */
const PRUNE_EVERY_MS = 60_000;

/**
 * Counters in the `rate_limits` table (UNLOGGED). A hit is one statement: insert the key, or
 * bump it, or restart its window when the old one ended; the row lock makes concurrent hits
 * from any number of servers count exactly. Expired rows are deleted at most once a minute
 * per process.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  private lastPrune = 0;

  constructor(private readonly db: () => Promise<Db>) {}

  async hit(key: string, windowMs: number) {
    const db = await this.db();
    const rows = await db.$queryRaw<{ count: number; remainingMs: number }[]>`
      INSERT INTO "rate_limits" AS r ("key", "count", "resetAt")
      VALUES (${key}, 1, now() + make_interval(secs => ${windowMs / 1000}::double precision))
      ON CONFLICT ("key") DO UPDATE SET
        "count" = CASE WHEN r."resetAt" <= now() THEN 1 ELSE r."count" + 1 END,
        "resetAt" = CASE WHEN r."resetAt" <= now() THEN EXCLUDED."resetAt" ELSE r."resetAt" END
      RETURNING "count",
        GREATEST(0, ceil(extract(epoch FROM ("resetAt" - now())) * 1000))::float8 AS "remainingMs"`;
    const row = rows[0];
    if (!row) throw new Error("rate limit upsert returned no row");
    this.maybePrune(db);
    return { count: Number(row.count), resetAt: Date.now() + Number(row.remainingMs) };
  }

  /** Deletes windows that ended; runs in the background, never delays the request. */
  private maybePrune(db: Db) {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    void this.prune(db).catch((error: unknown) =>
      console.error("Pruning rate-limit counters failed:", error),
    );
  }

  async prune(db?: Db): Promise<number> {
    const target = db ?? (await this.db());
    return target.$executeRaw`DELETE FROM "rate_limits" WHERE "resetAt" < now()`;
  }
}

/**
 * INCR, and PEXPIRE on the first hit of a window, in one Lua script (atomic: no window can
 * be left without expiry, whatever crashes). Redis expires old keys itself.
 */
const HIT_SCRIPT = `
local count = redis.call("INCR", KEYS[1])
local ttl = redis.call("PTTL", KEYS[1])
if count == 1 or ttl < 0 then
  redis.call("PEXPIRE", KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }`;

type RedisWithHit = Redis & {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
};

export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: RedisWithHit;

  /** Keys are `${prefix}rate:${key}`. */
  constructor(
    url: string,
    private readonly prefix = "marketplace:",
  ) {
    const client = new Redis(url, {
      // Fail fast instead of queueing hits for a Redis that is down: the request gets a
      // 503 and the limit is never silently skipped.
      maxRetriesPerRequest: 1,
      connectTimeout: 5_000,
      commandTimeout: 5_000,
      lazyConnect: false,
    });
    client.on("error", (error: Error) => console.error("Redis (rate limits):", error.message));
    client.defineCommand("rateLimitHit", { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.client = client as RedisWithHit;
  }

  async hit(key: string, windowMs: number) {
    const [count, ttl] = await this.client.rateLimitHit(`${this.prefix}rate:${key}`, windowMs);
    return { count: Number(count), resetAt: Date.now() + Number(ttl) };
  }

  async close(): Promise<void> {
    await this.client.quit();
  }
}

export interface RateLimitDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

/** Counts one hit on every key; refused when any key is over `limitPerMinute`. */
export async function checkRateLimit(
  store: RateLimitStore,
  keys: string[],
  limitPerMinute: number,
): Promise<RateLimitDecision> {
  const hits = await Promise.all(keys.map((key) => store.hit(key, 60_000)));
  let retryAfterSeconds = 0;
  for (const { count, resetAt } of hits) {
    if (count > limitPerMinute) {
      retryAfterSeconds = Math.max(retryAfterSeconds, Math.ceil((resetAt - Date.now()) / 1000), 1);
    }
  }
  return { allowed: retryAfterSeconds === 0, retryAfterSeconds };
}

const globalForLimits = globalThis as typeof globalThis & { __rateLimitStore?: RateLimitStore };

/** The process's store: Redis with REDIS_URL (one kept client), else the database. */
export function getRateLimitStore(): RateLimitStore {
  if (!globalForLimits.__rateLimitStore) {
    const { REDIS_URL, REDIS_KEY_PREFIX } = getConfig();
    globalForLimits.__rateLimitStore = REDIS_URL
      ? new RedisRateLimitStore(REDIS_URL, REDIS_KEY_PREFIX)
      : new PostgresRateLimitStore(getDb);
  }
  return globalForLimits.__rateLimitStore;
}
