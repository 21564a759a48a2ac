import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db";
import { commitGeneration } from "@/lib/events/commit-signal";

/**
 * A short-lived cache for the hottest public reads (the first page of a job list per filter,
 * one job): an answer is served again only while no commit has been noted since it was read
 * (lib/events/commit-signal.ts), and at most READ_CACHE_SECONDS after. Any commit drops every entry:
 * a transition changes a job's place in many lists at once, and writes are rare beside reads.
 * Answers are shared between requests, so callers must not change them.
 */
/** Entries are whole pages (tens of KB): a bound on memory whatever filters clients send. */
const MAX_ENTRIES = 200;

interface Entry {
  readAt: number;
  value: unknown;
}

/** One per database (in-process tests open many): the entries of one generation. */
interface Cache {
  generation: number;
  entries: Map<string, Entry>;
}

// Shared by every copy of this module (Next.js may evaluate it once per bundle), as the
// commit signal is.
const shared = globalThis as typeof globalThis & { __readCaches?: WeakMap<Db, Cache> };
const caches = (shared.__readCaches ??= new WeakMap());

export async function cachedRead<T>(db: Db, key: string, read: () => Promise<T>): Promise<T> {
  const maxAgeMs = getConfig().READ_CACHE_SECONDS * 1000;
  const generation = commitGeneration(db);
  if (generation === undefined || maxAgeMs === 0) return read();
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = { generation, entries: new Map() }));
  if (cache.generation !== generation) {
    cache.generation = generation;
    cache.entries.clear();
  }
  const now = Date.now();
  const entry = cache.entries.get(key);
  if (entry && now - entry.readAt < maxAgeMs) return entry.value as T;
  const value = await read();
  // Read under `generation`: worth keeping only if no commit was noted while it ran.
  if (commitGeneration(db) === generation && cache.generation === generation) {
    if (cache.entries.size >= MAX_ENTRIES) cache.entries.clear();
    cache.entries.set(key, { readAt: now, value });
  }
  return value;
}
