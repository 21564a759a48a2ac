import "server-only";
import { getConfig } from "@/lib/config";
import { type Db, type OpenDatabase, openDatabase } from "./client";
import { resolveDbTarget } from "./target";

export type { Db } from "./client";

/**
 * One database per server process. Cached on globalThis because Next.js may evaluate this
 * module more than once (route handlers and server components are bundled separately,
 * and dev reloads modules); two PGlite instances on one folder would corrupt it.
 * Nothing here runs at import time, so `next build` never opens the database.
 */
const globalForDb = globalThis as typeof globalThis & {
  __marketplaceDb?: Promise<OpenDatabase>;
};

export function getDb(): Promise<Db> {
  globalForDb.__marketplaceDb ??= openDatabase(resolveDbTarget(getConfig())).catch((error) => {
    globalForDb.__marketplaceDb = undefined;
    throw error;
  });
  return globalForDb.__marketplaceDb.then((open) => open.db);
}

/** Closes this process's database (graceful shutdown, in-process tests); the next getDb reopens. */
export async function closeDb(): Promise<void> {
  const open = globalForDb.__marketplaceDb;
  globalForDb.__marketplaceDb = undefined;
  if (open) await (await open).close();
}
