import "server-only";
import { getConfig } from "@/lib/platform/config";
import { type Db, type OpenDatabase, openDatabase } from "./client";
import { informedBySelf, listenForCommits } from "./commit-signal";
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
  globalForDb.__marketplaceDb ??= openServerDatabase().catch((error) => {
    globalForDb.__marketplaceDb = undefined;
    throw error;
  });
  return globalForDb.__marketplaceDb.then((open) => open.db);
}

/** The database, and what tells this process of its commits (for the read caches). */
async function openServerDatabase(): Promise<OpenDatabase> {
  const config = getConfig();
  const target = resolveDbTarget(config);
  const open = await openDatabase(target, {
    timeQueries: config.BENCHMARK_MODE === "true",
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS === "true",
    statementTimeoutMillis:
      config.DATABASE_STATEMENT_TIMEOUT_SECONDS === undefined
        ? undefined
        : config.DATABASE_STATEMENT_TIMEOUT_SECONDS * 1000,
  });
  if (target.kind === "pglite") {
    informedBySelf(open.db);
    return open;
  }
  const listener = listenForCommits(open.db, target.connectionString);
  await listener.ready;
  return {
    ...open,
    async close() {
      await listener.stop();
      await open.close();
    },
  };
}

/** Closes this process's database (graceful shutdown, in-process tests); the next getDb reopens. */
export async function closeDb(): Promise<void> {
  const open = globalForDb.__marketplaceDb;
  globalForDb.__marketplaceDb = undefined;
  if (open) await (await open).close();
}
