/**
 * Fixed-window rate limiting behind an interface, so that a shared store (Redis, the
 * database) can replace the in-memory one when several servers must share counts.
 */
export interface RateLimitStore {
  /** Counts one hit for `key`; returns the hits in the current window and when it ends. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  async hit(key: string, windowMs: number) {
    const now = Date.now();
    if (now - this.lastSweep > windowMs) this.sweep(now);
    const current = this.windows.get(key);
    if (!current || current.resetAt <= now) {
      const fresh = { count: 1, resetAt: now + windowMs };
      this.windows.set(key, fresh);
      return fresh;
    }
    current.count += 1;
    return current;
  }

  private sweep(now: number) {
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

export interface RateLimitDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export async function checkRateLimit(
  store: RateLimitStore,
  keys: string[],
  limitPerMinute: number,
): Promise<RateLimitDecision> {
  let retryAfterSeconds = 0;
  for (const key of keys) {
    const { count, resetAt } = await store.hit(key, 60_000);
    if (count > limitPerMinute) {
      retryAfterSeconds = Math.max(retryAfterSeconds, Math.ceil((resetAt - Date.now()) / 1000));
    }
  }
  return { allowed: retryAfterSeconds === 0, retryAfterSeconds: Math.max(retryAfterSeconds, 0) };
}

const globalForLimits = globalThis as typeof globalThis & { __rateLimitStore?: RateLimitStore };

export function getRateLimitStore(): RateLimitStore {
  globalForLimits.__rateLimitStore ??= new MemoryRateLimitStore();
  return globalForLimits.__rateLimitStore;
}
