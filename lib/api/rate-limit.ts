import { Redis } from "ioredis";
import { getConfig } from "@/lib/platform/config";
import { errorForLog } from "@/lib/platform/redact";
import { describeUnavailable, isUnavailableError, logOutage } from "@/lib/platform/unavailable";
import { getDb } from "@/lib/db";
import type { Db } from "@/lib/db";
import { setBounded } from "@/lib/shared/bounded-map";

/**
 * Fixed-window rate limiting behind one interface. The counters live where every server
 * process sees them, so N servers never give N times the limit: in the database by default
 * (one upsert per hit, on PostgreSQL or the embedded PGlite), in Redis when REDIS_URL is set
 * (one atomic script per hit). Windows are timed by the store's own clock, never by the
 * servers', so servers with drifting clocks agree.
 */
export interface RateLimitStore {
  /**
   * Counts `by` hits (default 1) for `key`; returns the hits in the current window and when
   * it ends.
   */
  hit(key: string, windowMs: number, by?: number): Promise<{ count: number; resetAt: number }>;
}

/** A store that failed: one line per outage and place, the whole error if it is not one. */
function logStoreFailure(where: string, error: unknown) {
  if (isUnavailableError(error)) logOutage(where, describeUnavailable(error));
  else console.error(`Rate-limit store failed (${where}):`, errorForLog(error));
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

  async hit(key: string, windowMs: number, by = 1) {
    const db = await this.db();
    const rows = await db.$queryRaw<{ count: number; remainingMs: number }[]>`
      INSERT INTO "rate_limits" AS r ("key", "count", "resetAt")
      VALUES (${key}, ${by}::int, now() + make_interval(secs => ${windowMs / 1000}::double precision))
      ON CONFLICT ("key") DO UPDATE SET
        "count" = CASE WHEN r."resetAt" <= now() THEN EXCLUDED."count" ELSE r."count" + EXCLUDED."count" END,
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
    void this.prune(db).catch((error: unknown) => logStoreFailure("pruning rate limits", error));
  }

  async prune(db?: Db): Promise<number> {
    const target = db ?? (await this.db());
    return target.$executeRaw`DELETE FROM "rate_limits" WHERE "resetAt" < now()`;
  }
}

/**
 * INCRBY, and PEXPIRE on the first hits of a window, in one Lua script (atomic: no window can
 * be left without expiry, whatever crashes). Redis expires old keys itself.
 */
const HIT_SCRIPT = `
local count = redis.call("INCRBY", KEYS[1], ARGV[2])
local ttl = redis.call("PTTL", KEYS[1])
if count == tonumber(ARGV[2]) or ttl < 0 then
  redis.call("PEXPIRE", KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }`;

type RedisWithHit = Redis & {
  rateLimitHit(key: string, windowMs: number, by: number): Promise<[number, number]>;
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
    // ioredis reconnects by itself (every 2 s at most while Redis is down): one line per
    // outage, and one when it is back.
    let down = false;
    client.on("error", (error: Error) => {
      down = true;
      logOutage("Redis (rate limits)", `${error.message}; writes answer 503 until it is back`);
    });
    client.on("ready", () => {
      if (down) console.info("Redis (rate limits): connected again");
      down = false;
    });
    client.defineCommand("rateLimitHit", { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.client = client as RedisWithHit;
  }

  async hit(key: string, windowMs: number, by = 1) {
    const [count, ttl] = await this.client.rateLimitHit(`${this.prefix}rate:${key}`, windowMs, by);
    return { count: Number(count), resetAt: Date.now() + Number(ttl) };
  }

  /** One PING on the kept client (the readiness check, lib/api/probes.ts). */
  async ping(): Promise<void> {
    await this.client.ping();
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

/** How often a process adds the hits it counted locally to the shared store. */
export const LOCAL_SYNC_INTERVAL_MS = 1_000;
/** Keys a process tracks at once; beyond, the oldest windows are dropped (counted again). */
const MAX_LOCAL_KEYS = 50_000;

interface LocalCount {
  /** When the shared window ends (by this process's clock, from the store's answer). */
  resetAt: number;
  /** Hits in the window as the store last answered, this process's included. */
  shared: number;
  /** Hits counted here and not yet added to the store. */
  pending: number;
}

/**
 * Rate limits for reads, which must cost a request next to nothing: each hit is counted in
 * memory and decided at once (the last count the shared store answered plus what this process
 * counted since), and every LOCAL_SYNC_INTERVAL_MS the hits are added to the store, which
 * answers the count of every server. One process refuses exactly past the limit; N processes
 * together let through at most one interval's worth of hits more than the limit before they
 * all see the shared count. A store that fails keeps the local counts (logged, retried).
 */
export class LocalFirstLimiter {
  private readonly counts = new Map<string, LocalCount>();
  private timer: NodeJS.Timeout | undefined;
  private syncing = false;

  constructor(
    private readonly store: () => RateLimitStore,
    private readonly windowMs = 60_000,
    private readonly maxKeys = MAX_LOCAL_KEYS,
  ) {}

  /** Counts one hit on every key; refused when any key is over `limitPerMinute`. */
  check(keys: readonly string[], limitPerMinute: number): RateLimitDecision {
    const now = Date.now();
    let retryAfterSeconds = 0;
    for (const key of keys) {
      let entry = this.counts.get(key);
      if (!entry || entry.resetAt <= now) {
        entry = { resetAt: now + this.windowMs, shared: 0, pending: 0 };
        // A window started now is the newest: setBounded puts it last in the order the bound
        // drops from.
        setBounded(this.counts, key, entry, this.maxKeys);
      }
      entry.pending += 1;
      if (entry.shared + entry.pending > limitPerMinute) {
        const seconds = Math.ceil((entry.resetAt - now) / 1000);
        retryAfterSeconds = Math.max(retryAfterSeconds, seconds, 1);
      }
    }
    this.schedule();
    return { allowed: retryAfterSeconds === 0, retryAfterSeconds };
  }

  /** Adds every pending count to the store now (the timer does it; tests call it). */
  async sync(): Promise<void> {
    if (this.syncing) return;
    this.syncing = true;
    try {
      const due = [...this.counts].filter(([, entry]) => entry.pending > 0);
      await Promise.all(
        due.map(async ([key, entry]) => {
          const sent = entry.pending;
          try {
            const answer = await this.store().hit(key, this.windowMs, sent);
            entry.pending -= sent;
            entry.shared = answer.count;
            entry.resetAt = answer.resetAt;
          } catch (error) {
            logStoreFailure("read rate limits (counts kept locally)", error);
          }
        }),
      );
      const now = Date.now();
      for (const [key, entry] of this.counts) {
        if (entry.resetAt <= now && entry.pending === 0) this.counts.delete(key);
      }
    } finally {
      this.syncing = false;
    }
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sync().then(() => {
        if ([...this.counts.values()].some((entry) => entry.pending > 0)) this.schedule();
      });
    }, LOCAL_SYNC_INTERVAL_MS);
    this.timer.unref();
  }
}

const globalForLimits = globalThis as typeof globalThis & {
  __rateLimitStore?: RateLimitStore;
  __readLimiter?: LocalFirstLimiter;
};

/** The process's read limiter, over the process's store. */
export function getReadLimiter(): LocalFirstLimiter {
  globalForLimits.__readLimiter ??= new LocalFirstLimiter(getRateLimitStore);
  return globalForLimits.__readLimiter;
}

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
