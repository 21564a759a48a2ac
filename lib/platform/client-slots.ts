import type { ErrorCode } from "@/lib/shared/error-codes";
import { DomainError } from "./errors";

/**
 * A process's slots for work that holds something while it waits (a long-poll, an upload
 * being read): at most `slots` held at once, at most `queue` waiting for one, and at most
 * `perClient` held or waiting per client key (its address, its wallet), so that one client
 * cannot take every slot and leave the next one a 503.
 *
 *   - the client already holds `perClient` → 429 with Retry-After (its own slots free up);
 *   - every slot held and the queue full → 503 with Retry-After (the server is busy).
 */
export interface SlotPoolOptions {
  slots: number;
  perClient: number;
  queue: number;
  /** What a slot is for, in the refusals: "long-polls", "uploads". */
  what: string;
  /** The code of the per-client refusal (429). */
  clientCode: ErrorCode;
  /** Seconds a refused client is told to wait. */
  retryAfterSeconds: number;
}

interface Waiter {
  keys: readonly string[];
  grant(): void;
}

export class ClientSlotPool {
  private free: number;
  private readonly waiting: Waiter[] = [];
  /** Slots held or waited for, per client key. */
  private readonly perKey = new Map<string, number>();

  constructor(private readonly options: SlotPoolOptions) {
    this.free = options.slots;
  }

  /** Slots free right now (for tests and the server's own reports). */
  get available(): number {
    return this.free;
  }

  /** A slot for the client named by `keys`; resolves with its release (idempotent). */
  async acquire(keys: readonly string[]): Promise<() => void> {
    const { perClient, queue, what, clientCode, retryAfterSeconds } = this.options;
    const retryAfter = { "Retry-After": String(retryAfterSeconds) };
    if (keys.some((key) => (this.perKey.get(key) ?? 0) >= perClient)) {
      throw new DomainError(
        "rate_limited",
        `you already hold ${perClient} ${what} on this server; wait for one to finish`,
        retryAfter,
        clientCode,
      );
    }
    if (this.free === 0 && this.waiting.length >= queue) {
      throw new DomainError(
        "unavailable",
        `too many ${what} on this server right now; retry shortly`,
        retryAfter,
        "server_busy",
      );
    }
    for (const key of keys) this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1);
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((grant) => this.waiting.push({ keys, grant }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of keys) {
        const count = (this.perKey.get(key) ?? 1) - 1;
        if (count > 0) this.perKey.set(key, count);
        else this.perKey.delete(key);
      }
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.free += 1;
    };
  }
}

const shared = globalThis as typeof globalThis & {
  __clientSlotPools?: Map<string, ClientSlotPool>;
};

/**
 * The process's pool of that name (Next.js may evaluate a module once per bundle: every copy
 * must count the same slots). Made on first use with `options()`.
 */
export function slotPool(name: string, options: () => SlotPoolOptions): ClientSlotPool {
  const pools = (shared.__clientSlotPools ??= new Map());
  let pool = pools.get(name);
  if (!pool) pools.set(name, (pool = new ClientSlotPool(options())));
  return pool;
}
