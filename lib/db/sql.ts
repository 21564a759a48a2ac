import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";

/** The few raw-SQL operations the migration runner needs, over either database. */
export interface SqlSession {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements as one implicit transaction. */
  exec(script: string): Promise<void>;
  close(): Promise<void>;
}

export async function openPgSession(
  connectionString: string,
  schema?: string,
): Promise<SqlSession> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  if (schema) {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(`SET search_path TO ${quoteIdent(schema)}`);
  }
  return {
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as Row[];
    },
    async exec(script: string) {
      await client.query(script);
    },
    close: () => client.end(),
  };
}

/** Wraps an open PGlite without owning it: closing the session leaves PGlite open. */
export function pgliteSession(db: PGlite): SqlSession {
  return {
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await db.query<Row>(sql, params)).rows;
    },
    async exec(script: string) {
      await db.exec(script);
    },
    close: async () => {},
  };
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
