// Holds a table (or one row) of the server's PostgreSQL schema locked against writes, so that a
// test can stop the server at the exact moment it tries to write (seen in pg_stat_activity as a
// statement waiting on a lock), then kill it there, or line up concurrent writes in a known
// order.
import pg from "pg";
import { quoteIdent } from "@/lib/db/sql";

export interface TableGate {
  /** Resolves once `count` statements matching `pattern` wait on a lock. */
  waitForBlocked(pattern: RegExp, timeoutMs?: number, count?: number): Promise<string>;
  /** Lets writes through again. */
  open(): Promise<void>;
}

export async function closeTableForWrites(databaseUrl: string, table: string): Promise<TableGate> {
  // EXCLUSIVE: plain reads pass, writes and row locks on the table wait.
  return closeForWrites(databaseUrl, (schema) => [
    `LOCK TABLE ${quoteIdent(schema)}.${quoteIdent(table)} IN EXCLUSIVE MODE`,
  ]);
}

/**
 * The rows whose `column` is `value` only (FOR UPDATE): plain reads pass, their writes and
 * locks wait, in the order they came (PostgreSQL queues a row's waiters), while the rest of the
 * table stays open.
 */
export async function closeRowsForWrites(
  databaseUrl: string,
  table: string,
  column: string,
  value: string,
): Promise<TableGate> {
  return closeForWrites(databaseUrl, (schema) => [
    `SELECT 1 FROM ${quoteIdent(schema)}.${quoteIdent(table)} WHERE ${quoteIdent(column)} = $1 FOR UPDATE`,
    [value],
  ]);
}

async function closeForWrites(
  databaseUrl: string,
  lock: (schema: string) => [string, unknown[]?],
): Promise<TableGate> {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema");
  url.searchParams.delete("schema");
  if (!schema) throw new Error("closing a table for writes needs a DATABASE_URL with ?schema=");
  const holder = new pg.Client({ connectionString: url.toString() });
  const watcher = new pg.Client({ connectionString: url.toString() });
  await Promise.all([holder.connect(), watcher.connect()]);
  await holder.query("BEGIN");
  const [sql, values] = lock(schema);
  await holder.query(sql, values);
  let opened = false;
  return {
    async waitForBlocked(pattern, timeoutMs = 30_000, count = 1) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const { rows } = await watcher.query<{ query: string }>(
          `SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        const blocked = rows.filter((row) => pattern.test(row.query));
        if (blocked.length >= count) return blocked[0]!.query;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(
        `not ${count} statement(s) matching ${pattern} waited on a lock within ${timeoutMs} ms`,
      );
    },
    async open() {
      if (opened) return;
      opened = true;
      await holder.query("ROLLBACK").catch(() => undefined);
      await Promise.all([holder.end(), watcher.end()]);
    },
  };
}
