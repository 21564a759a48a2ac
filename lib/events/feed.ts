import type { Db } from "@/lib/db";
import { getConfig } from "@/lib/platform/config";
import { slotPool } from "@/lib/platform/client-slots";
import { DomainError } from "@/lib/platform/errors";
import type { Event } from "@/lib/generated/prisma/client";
import { type EventType, LATEST, type ListEventsQuery } from "@/lib/shared/schemas/events";
import type { EventData, EventView } from "@/lib/shared/view-types";
import { describeUnavailable, isUnavailableError, logOutage } from "@/lib/platform/unavailable";

/**
 * The read side of the event feed: GET /api/v1/events pages through events in id order, which
 * is commit order (lib/events/record.ts). `nextCursor` is where to continue: the last event
 * served, or, when the page is not full, the feed's head at the time of the read (everything
 * up to it was looked at), so that filtered readers do not scan the same events again.
 * `after=latest` starts at the head: nothing from the past, the next event with `wait`.
 * Events past their retention are deleted oldest first (lib/events/retention.ts): `after=0`
 * starts at the oldest kept, and a cursor into the deleted range answers 410 cursor_expired.
 */

export interface EventPage {
  items: EventView[];
  nextCursor: string;
  hasMore: boolean;
}

/** The highest event id written so far (0 for none). Every lower committed id is visible. */
export async function feedHead(db: Db): Promise<bigint> {
  const { _max } = await db.event.aggregate({ _max: { id: true } });
  return _max.id ?? 0n;
}

export async function listEvents(db: Db, query: ListEventsQuery): Promise<EventPage> {
  // The head first: ids up to it are final (committed or never), so the page below cannot
  // miss one that commits later.
  const head = await feedHead(db);
  if (query.after === LATEST) return { items: [], nextCursor: head.toString(), hasMore: false };
  const rows = await db.event.findMany({
    where: {
      id: { gt: query.after, lte: head },
      ...(query.types?.length ? { type: { in: query.types } } : {}),
      ...(query.category ? { category: query.category } : {}),
      ...(query.jobId ? { jobId: query.jobId } : {}),
    },
    orderBy: { id: "asc" },
    take: query.limit + 1,
  });
  // After the rows: had pruning deleted some of them meanwhile, its mark is visible by now.
  if (query.after > 0n) await assertNotPruned(db, query.after);
  const hasMore = rows.length > query.limit;
  const items = rows.slice(0, query.limit);
  const end = hasMore ? items.at(-1)!.id : head > query.after ? head : query.after;
  return { items: items.map(toEventView), nextCursor: end.toString(), hasMore };
}

/** Refuses a cursor below the pruned range's end: the events right after it are gone. */
async function assertNotPruned(db: Db, after: bigint): Promise<void> {
  const mark = await db.eventPruning.findUnique({ where: { id: 1 } });
  const prunedThrough = mark?.prunedThrough ?? 0n;
  if (after >= prunedThrough) return;
  throw new DomainError(
    "gone",
    `the events after ${after} were deleted (the feed keeps ${getConfig().EVENT_RETENTION_DAYS} ` +
      `days of events): re-read what you follow, then continue with after=${prunedThrough} ` +
      "(the oldest kept) or after=latest",
    {},
    "cursor_expired",
  );
}

/** Who waits: the request's abort signal and the client (its address) the slot counts for. */
export interface WaitingClient {
  signal?: AbortSignal;
  /** The client's rate-limit subject (lib/client-address.ts). */
  client: string;
}

/**
 * The page after `query.after`; with `wait`, a long-poll: when nothing matches yet, waits up
 * to `wait` seconds for a matching event and answers as soon as one is committed (or empty at
 * the deadline). One shared poll of the feed's head per process, whatever the number of
 * waiting requests; at most EVENTS_LONG_POLL_MAX_WAITERS wait at once (503 beyond), at most
 * EVENTS_LONG_POLL_PER_CLIENT of them from one client address (429 beyond).
 */
export async function readEvents(
  db: Db,
  query: ListEventsQuery,
  { signal, client }: WaitingClient,
): Promise<EventPage> {
  let page = await listEvents(db, query);
  if (page.items.length > 0 || query.wait === 0) return page;
  const release = await longPollSlots().acquire([`ip:${client}`]);
  try {
    const deadline = Date.now() + query.wait * 1000;
    let cursor = BigInt(page.nextCursor);
    while (!signal?.aborted) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const head = await headWatcher(db).waitBeyond(cursor, remaining, signal);
      if (head <= cursor) break;
      page = await listEvents(db, { ...query, after: cursor });
      if (page.items.length > 0) return page;
      cursor = BigInt(page.nextCursor);
    }
    return { items: [], nextCursor: cursor.toString(), hasMore: false };
  } finally {
    release();
  }
}

export function toEventView(row: Event): EventView {
  return {
    id: row.id.toString(),
    type: row.type as EventType,
    createdAt: row.createdAt.toISOString(),
    data: row.data as unknown as EventData,
  };
}

/** How often the shared watcher reads the feed's head while requests wait. */
export const HEAD_POLL_INTERVAL_MS = 200;

interface Waiter {
  after: bigint;
  settle(head: bigint): void;
}

/** One per database client: polls `max(id)` while anyone waits, wakes those it concerns. */
class HeadWatcher {
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly db: Db) {}

  /** Resolves with the head once it passes `after`, or with `after` at the timeout or abort. */
  waitBeyond(after: bigint, timeoutMs: number, signal?: AbortSignal): Promise<bigint> {
    return new Promise((resolve) => {
      const onAbort = () => waiter.settle(after);
      const timeout = setTimeout(onAbort, timeoutMs);
      const waiter: Waiter = {
        after,
        settle: (head) => {
          clearTimeout(timeout);
          signal?.removeEventListener("abort", onAbort);
          this.waiters.delete(waiter);
          if (this.waiters.size === 0) this.stop();
          resolve(head);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(waiter);
      this.start();
    });
  }

  private start() {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), HEAD_POLL_INTERVAL_MS);
    this.timer.unref();
  }

  private stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll() {
    if (this.polling) return;
    this.polling = true;
    try {
      const head = await feedHead(this.db);
      for (const waiter of [...this.waiters]) if (head > waiter.after) waiter.settle(head);
    } catch (error) {
      // Every 200 ms while the database is down: one line per outage, not a stack per poll.
      if (isUnavailableError(error)) logOutage("event feed watcher", describeUnavailable(error));
      else console.error("Event feed watcher:", error);
    } finally {
      this.polling = false;
    }
  }
}

// On globalThis: Next.js may load this module more than once in one process.
const shared = globalThis as typeof globalThis & {
  __eventHeadWatchers?: WeakMap<Db, HeadWatcher>;
};

function headWatcher(db: Db): HeadWatcher {
  shared.__eventHeadWatchers ??= new WeakMap();
  let watcher = shared.__eventHeadWatchers.get(db);
  if (!watcher) {
    watcher = new HeadWatcher(db);
    shared.__eventHeadWatchers.set(db, watcher);
  }
  return watcher;
}

function longPollSlots() {
  return slotPool("long-polls", () => {
    const config = getConfig();
    return {
      slots: config.EVENTS_LONG_POLL_MAX_WAITERS,
      perClient: config.EVENTS_LONG_POLL_PER_CLIENT,
      queue: 0,
      what: "long-polls waiting for events",
      clientCode: "too_many_long_polls",
      retryAfterSeconds: 1,
    };
  });
}
