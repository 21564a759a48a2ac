import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { timePool } from "@/lib/platform/server-timing";
import { acquirePgliteDirLock } from "./pglite-lock";
import { createPool, POOL_LIMITS } from "./pool";
import { registerRowReader, statementName } from "./row-reader";
import type { DbTarget } from "./target";

/**
 * btree_gin (from PGlite's own package, no download): the jobs' search index holds the filter
 * columns beside the words (migration 20261130000000_job_search_filters), as on PostgreSQL.
 */
const PGLITE_OPTIONS = { extensions: { btree_gin } };

export type Db = PrismaClient;

export interface OpenDatabase {
  db: PrismaClient;
  /** Present for PGlite: the embedded engine, for raw SQL and migrations. */
  pglite?: PGlite;
  close(): Promise<void>;
}

/**
 * Opens a Prisma client on the target. Each call is a new client: callers own it.
 * `timeQueries` (the benchmark's server) times every PostgreSQL round-trip (lib/server-timing.ts).
 * `preparedStatements` (default on) names each PostgreSQL statement so that it is planned once
 * per connection; a pooler in transaction mode (PgBouncer) needs it off.
 * `statementTimeoutMillis` replaces the pool's PostgreSQL statement_timeout (lib/db/pool.ts;
 * 0: none). PGlite has none: nothing is set there.
 */
export async function openDatabase(
  target: DbTarget,
  options: {
    timeQueries?: boolean;
    preparedStatements?: boolean;
    statementTimeoutMillis?: number;
  } = {},
): Promise<OpenDatabase> {
  if (target.kind === "postgres") {
    // Bounded connects, queries and statements, and an idle connection's death never ends the
    // process.
    const pool = createPool(target.connectionString, {
      ...POOL_LIMITS,
      statementTimeoutMillis: options.statementTimeoutMillis ?? POOL_LIMITS.statementTimeoutMillis,
    });
    if (options.timeQueries) timePool(pool);
    const prepared = options.preparedStatements ?? true;
    const db = new PrismaClient({
      adapter: new PrismaPg(pool, {
        ...(target.schema ? { schema: target.schema } : {}),
        // Every statement prepared once per connection, by its text's hash: PostgreSQL plans
        // it once instead of on every call. Off behind a pooler in transaction mode.
        ...(prepared ? { statementNameGenerator: (query) => statementName(query.sql) } : {}),
      }),
    });
    registerRowReader(db, async (statement) => {
      const { text, values } = statement;
      const name = prepared ? statementName(text) : undefined;
      return (await pool.query({ name, text, values })).rows;
    });
    return {
      db,
      async close() {
        await db.$disconnect();
        await pool.end();
      },
    };
  }
  const release = target.dataDir ? acquirePgliteDirLock(target.dataDir) : () => {};
  try {
    const pglite = await PGlite.create({ dataDir: target.dataDir, ...PGLITE_OPTIONS });
    const db = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    return {
      db,
      pglite,
      async close() {
        await db.$disconnect();
        await pglite.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
