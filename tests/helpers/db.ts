import { randomBytes } from "node:crypto";
import pg from "pg";
import { openDatabase, type OpenDatabase } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { openPgSession, pgliteSession, quoteIdent, type SqlSession } from "@/lib/db/sql";

/**
 * Real databases for tests: a fresh in-memory PGlite always, and a fresh schema on the
 * PostgreSQL server named by TEST_DATABASE_URL when it is set (dropped afterwards).
 */
export type DbKind = "pglite" | "postgres";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
/** A Redis server for the Redis rate-limit store's tests (CI: redis://127.0.0.1:6379). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;
export const DB_KINDS: DbKind[] = TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

export interface TestDatabase extends OpenDatabase {
  kind: DbKind;
  /** For PostgreSQL: the DATABASE_URL a server process can use for this same schema. */
  databaseUrl?: string;
}

export function freshSchemaName(): string {
  return `t_${randomBytes(6).toString("hex")}`;
}

export async function createTestDatabase(kind: DbKind): Promise<TestDatabase> {
  const database = await createEmptyDatabase(kind);
  await migrate(database.sql);
  return database;
}

export interface EmptyDatabase extends TestDatabase {
  /** Raw SQL on the same database (the migration runner's session). */
  sql: SqlSession;
}

/** A fresh database with no tables at all (for migration tests); `close` drops it. */
export async function createEmptyDatabase(kind: DbKind): Promise<EmptyDatabase> {
  if (kind === "pglite") {
    const open = await openDatabase({ kind: "pglite", dataDir: undefined });
    return { ...open, kind, sql: pgliteSession(open.pglite!) };
  }
  const { databaseUrl, dropSchema } = await createPostgresSchema();
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema")!;
  url.searchParams.delete("schema");
  url.searchParams.set("options", `-c search_path=${schema}`);
  const sql = await openPgSession(url.toString(), schema);
  const open = await openDatabase({ kind: "postgres", connectionString: url.toString(), schema });
  return {
    ...open,
    kind,
    databaseUrl,
    sql,
    async close() {
      await open.close();
      await sql.close();
      await dropSchema();
    },
  };
}

/** An empty schema on TEST_DATABASE_URL; returns a DATABASE_URL naming it and a dropper. */
export async function createPostgresSchema(): Promise<{
  databaseUrl: string;
  dropSchema(): Promise<void>;
}> {
  if (!TEST_DATABASE_URL) throw new Error("TEST_DATABASE_URL is not set");
  const schema = freshSchemaName();
  await adminQuery(`CREATE SCHEMA ${quoteIdent(schema)}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("schema", schema);
  return {
    databaseUrl: url.toString(),
    dropSchema: () => adminQuery(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`),
  };
}

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
