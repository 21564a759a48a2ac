import { getConfig } from "@/lib/platform/config";
import type { Db } from "@/lib/db";
import { commitGeneration } from "@/lib/db/commit-signal";

/**
 * A short-lived cache for the hottest public reads (the first page of a job list per filter,
 * one job): an answer is served again only while no commit has been noted since it was read
 * (lib/events/commit-signal.ts), and at most READ_CACHE_SECONDS after. Any commit drops every entry:
 * a transition changes a job's place in many lists at once, and writes are rare beside reads.
 * Answers are shared between requests, so callers must not change them.
 */
/**
 * Bounds on memory whatever filters clients send: entries are whole pages (usually tens of
 * KB, up to LIMITS.pageBytes each), so both their number and their text's memory are bounded.
 * Past either, the least recently used go first: traffic asking many distinct things (every
 * filter, search and budget) churns through the cache while the pages many ask for stay.
 */
const MAX_ENTRIES = 200;
const MAX_BYTES = 32 * 1024 * 1024;

/** What the cache holds: an answer PostgreSQL wrote as JSON text, with small fields beside it. */
export interface JsonAnswer {
  json: string;
}

/**
 * The memory an answer's text holds at most: a JavaScript string keeps one or two bytes a
 * character. Read off its length, not its characters: a page's text is up to a megabyte, and
 * counting its UTF-8 and escapes character by character took 150-200 µs on a 45 KB page, on
 * every miss (2026-11-27).
 */
const retainedBytes = (answer: JsonAnswer) => 2 * answer.json.length;

interface Entry {
  readAt: number;
  value: unknown;
  bytes: number;
}

/** One per database (in-process tests open many): the entries of one generation. */
interface Cache {
  generation: number;
  entries: Map<string, Entry>;
  bytes: number;
}

// Shared by every copy of this module (Next.js may evaluate it once per bundle), as the
// commit signal is.
const shared = globalThis as typeof globalThis & { __readCaches?: WeakMap<Db, Cache> };
const caches = (shared.__readCaches ??= new WeakMap());

export async function cachedRead<T extends JsonAnswer>(
  db: Db,
  key: string,
  read: () => Promise<T>,
): Promise<T> {
  const maxAgeMs = getConfig().READ_CACHE_SECONDS * 1000;
  const generation = commitGeneration(db);
  if (generation === undefined || maxAgeMs === 0) return read();
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = { generation, entries: new Map(), bytes: 0 }));
  if (cache.generation !== generation) {
    cache.generation = generation;
    cache.entries.clear();
    cache.bytes = 0;
  }
  const now = Date.now();
  const entry = cache.entries.get(key);
  if (entry && now - entry.readAt < maxAgeMs) {
    // Moved last: a Map iterates in insertion order, so the first is the least recently used.
    cache.entries.delete(key);
    cache.entries.set(key, entry);
    return entry.value as T;
  }
  const value = await read();
  // Read under `generation`: worth keeping only if no commit was noted while it ran.
  if (commitGeneration(db) === generation && cache.generation === generation) {
    const bytes = retainedBytes(value);
    const stale = cache.entries.get(key);
    if (stale) {
      cache.entries.delete(key);
      cache.bytes -= stale.bytes;
    }
    for (const [oldest, old] of cache.entries) {
      if (cache.entries.size < MAX_ENTRIES && cache.bytes + bytes <= MAX_BYTES) break;
      cache.entries.delete(oldest);
      cache.bytes -= old.bytes;
    }
    cache.entries.set(key, { readAt: now, value, bytes });
    cache.bytes += bytes;
  }
  return value;
}
