// Holds a table of the server's PostgreSQL schema locked against writes, so that a test can
// stop the server at the exact moment it tries to write (seen in pg_stat_activity as a
// statement waiting on a lock), then kill it there.
import pg from "pg";
import { quoteIdent } from "@/lib/db/sql";

export interface TableGate {
  /** Resolves once a statement matching `pattern` waits on the lock. */
  waitForBlocked(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Lets writes through again. */
  open(): Promise<void>;
}

export async function closeTableForWrites(databaseUrl: string, table: string): Promise<TableGate> {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema");
  url.searchParams.delete("schema");
  if (!schema) throw new Error("closeTableForWrites needs a DATABASE_URL with ?schema=");
  const holder = new pg.Client({ connectionString: url.toString() });
  const watcher = new pg.Client({ connectionString: url.toString() });
  await Promise.all([holder.connect(), watcher.connect()]);
  await holder.query("BEGIN");
  // EXCLUSIVE: plain reads pass, writes and row locks on the table wait.
  await holder.query(`LOCK TABLE ${quoteIdent(schema)}.${quoteIdent(table)} IN EXCLUSIVE MODE`);
  let opened = false;
  return {
    async waitForBlocked(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const { rows } = await watcher.query<{ query: string }>(
          `SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        const blocked = rows.find((row) => pattern.test(row.query));
        if (blocked) return blocked.query;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no statement matching ${pattern} waited on the lock within ${timeoutMs} ms`);
    },
    async open() {
      if (opened) return;
      opened = true;
      await holder.query("ROLLBACK").catch(() => undefined);
      await Promise.all([holder.end(), watcher.end()]);
    },
  };
}
