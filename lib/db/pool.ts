// The server's PostgreSQL connections, bounded so that a database that is down, restarting or
// cut off by the network fails a request in seconds (503, lib/platform/unavailable.ts) instead
// of holding it forever, so that the pool heals by itself once the database is back, and so
// that PostgreSQL itself ends a statement that runs too long (statement_timeout).
import type { Socket } from "node:net";
import pg from "pg";

export const POOL_LIMITS = {
  /** Connections per process (docs/operations.md: plan max_connections for N × 11). */
  max: 10,
  /**
   * Opening a connection, or waiting for a free one, longer than this fails the query. As long
   * as a write transaction's own wait (WRITE_TRANSACTION.maxWait): what a burst waits for in
   * the queue is unchanged; a database that never answers (a partition) is given up on.
   */
  connectionTimeoutMillis: 10_000,
  /**
   * A query with no answer for this long fails and its connection is closed. Longer than a
   * write transaction may last (WRITE_TRANSACTION.timeout, 20 s), so only a lost connection
   * reaches it: PostgreSQL's own restarts close the socket and fail at once.
   */
  queryTimeoutMillis: 30_000,
  /**
   * PostgreSQL's statement_timeout on these connections (0: none): the database cancels a
   * statement running longer (SQLSTATE 57014, answered 503 server_busy by
   * lib/platform/errors.ts) and the connection stays usable. The client-side timeout above only
   * gives up waiting: the statement would go on burning a database core for everyone else.
   * Shorter than that timeout and than a write transaction (WRITE_TRANSACTION.timeout, 20 s), so
   * a runaway statement ends first, with a clear cause. Far longer than any legitimate one: the
   * slowest measured at a million jobs on a loaded machine, a search, took 1.9 s (7.2 s before
   * the bounded scans: docs/benchmarks/2026-11-26-reads.md); the background work (retention,
   * webhook fan-out and delivery, the reconcilers) claims and deletes in batches of at most
   * 5,000 rows. Lock waits count too: a write waiting 15 s for a row waits for a transaction
   * that is itself near its own 20 s end. Migrations and the benchmark's seeding (index builds
   * over a million rows take minutes) open their own connections (lib/db/sql.ts,
   * tools/bench-seed.ts) and are not bounded. DATABASE_STATEMENT_TIMEOUT_SECONDS overrides it.
   */
  statementTimeoutMillis: 15_000,
  /** TCP keepalive on idle connections, so that a peer gone without a word is noticed. */
  keepAliveInitialDelayMillis: 10_000,
} as const;

/** The fields of pg.Client this file reaches into (node-postgres keeps them untyped). */
interface ClientInternals {
  connection?: { stream?: Socket };
}

type Callback = (error: Error | null, result?: unknown) => void;

/**
 * A client that closes its connection when a query times out. node-postgres fails the query
 * but keeps the connection, whose lost query still blocks every later one on it; a transaction
 * would then hand that connection back to the pool, and each next user would wait out the
 * timeout again.
 */
class BoundedClient extends pg.Client {
  // The overloads of pg.Client.query, taken through as given.
  override query(...args: unknown[]): never {
    const last = args.length - 1;
    const callback = typeof args[last] === "function" ? (args[last] as Callback) : undefined;
    if (callback) {
      args[last] = (error: Error | null, result?: unknown) => {
        if (error) this.closeIfTimedOut(error);
        callback(error, result);
      };
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (!callback && result instanceof Promise) {
      result.catch((error: unknown) => this.closeIfTimedOut(error));
    }
    return result as never;
  }

  private closeIfTimedOut(error: unknown) {
    if (error instanceof Error && error.message === "Query read timeout") {
      (this as unknown as ClientInternals).connection?.stream?.destroy();
    }
  }
}

/**
 * PostgreSQL answered the statement with an error (a unique violation, a cancelled statement,
 * a lock timeout) and the connection is ready for the next one. FATAL and PANIC end the
 * connection; a client-side failure (timed out, connection lost) is no DatabaseError.
 */
function isStatementError(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.severity === "ERROR";
}

/**
 * Whether node-postgres sends the query with the extended protocol (a name or parameters):
 * one statement, in its own implicit transaction. A text sent with the simple protocol may
 * hold several statements, `BEGIN` among them, and fail in an open transaction.
 */
function isSingleStatement(config: unknown, values: unknown): boolean {
  const query = (typeof config === "string" ? { values } : config) as {
    name?: string;
    values?: unknown[];
    queryMode?: string;
  };
  return Boolean(query.name) || query.queryMode === "extended" || (query.values?.length ?? 0) > 0;
}

/**
 * A pool whose one-off queries (`pool.query`: Prisma outside a transaction, the row reader)
 * keep their connection when PostgreSQL answers a statement with an error. pg-pool's own
 * `query` closes the connection on any error, so each failed statement cost a new connection
 * (a backend started, every prepared statement prepared again): a client sending conflicting
 * writes, or a storm of cancelled statements, churned the pool for everyone. A connection that
 * failed is still dropped (released with its error, or found closed by the pool on release),
 * and so is one whose failed text was sent with the simple protocol: it may have left a
 * transaction open, which the next user would inherit.
 */
class StatementErrorKeepingPool extends pg.Pool {
  // The overloads of pg.Pool.query: the callback forms go through pg-pool as before.
  override query(...args: unknown[]): never {
    if (args.some((arg) => typeof arg === "function")) {
      return (super.query as (...a: unknown[]) => unknown)(...args) as never;
    }
    return this.queryKeepingConnection(args[0], args[1]) as never;
  }

  private async queryKeepingConnection(config: unknown, values: unknown): Promise<unknown> {
    const client = await this.connect();
    // A connection lost mid-query emits `error` (unheard, it would end the process) and fails
    // the query with it: the catch below drops the connection.
    const ignore = () => undefined;
    client.on("error", ignore);
    try {
      const result = await (client.query as (...a: unknown[]) => Promise<unknown>)(config, values);
      client.removeListener("error", ignore);
      client.release();
      return result;
    } catch (error) {
      client.removeListener("error", ignore);
      const keep = isStatementError(error) && isSingleStatement(config, values);
      client.release(keep ? undefined : (error as Error));
      throw error;
    }
  }
}

export type PoolLimits = { -readonly [K in keyof typeof POOL_LIMITS]: number };

/** A pool for `connectionString` with the bounds above (tests shorten them). */
export function createPool(connectionString: string, limits: PoolLimits = POOL_LIMITS): pg.Pool {
  const pool = new StatementErrorKeepingPool({
    connectionString,
    max: limits.max,
    connectionTimeoutMillis: limits.connectionTimeoutMillis,
    query_timeout: limits.queryTimeoutMillis,
    // Sent as a startup parameter (node-postgres), so it holds from the connection's first
    // statement; 0 sends nothing.
    statement_timeout: limits.statementTimeoutMillis,
    keepAlive: true,
    keepAliveInitialDelayMillis: limits.keepAliveInitialDelayMillis,
    Client: BoundedClient,
  });
  // An idle connection the server closed (a restart) is dropped by the pool, which then emits
  // `error`: with no listener that would end the process. The next query opens a new one.
  pool.on("error", () => undefined);
  return pool;
}
