// The direct reader of text statements: on PostgreSQL it reads through node-postgres as a
// named prepared statement (seen by the same connection in pg_prepared_statements), with
// prepared statements off it prepares nothing, and on PGlite Prisma reads the same SQL; all
// three answer the same rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { openDatabase, type OpenDatabase } from "./client";
import { readRows, statementName } from "./row-reader";
import { resolveDbTarget } from "./target";

const statement = (n: number) =>
  Prisma.sql`SELECT ${n}::text AS "text", 'two words'::text AS "more" FROM generate_series(1, 3)`;

describe.each(DB_KINDS)("readRows on %s", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.close());

  it("answers the statement's rows, as text", async () => {
    expect(await readRows(database.db, statement(7))).toEqual(
      Array.from({ length: 3 }, () => ({ text: "7", more: "two words" })),
    );
  });
});

describe.runIf(DB_KINDS.includes("postgres"))("prepared statements on PostgreSQL", () => {
  let database: TestDatabase;
  let unprepared: OpenDatabase;
  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    unprepared = await openDatabase(resolveDbTarget({ DATABASE_URL: database.databaseUrl! }), {
      preparedStatements: false,
    });
  });
  afterAll(async () => {
    await unprepared?.close();
    await database?.close();
  });

  it("prepares it once per connection under its text's name", async () => {
    await readRows(database.db, statement(8));
    // One request at a time: the pool hands back its last idle connection (LIFO).
    const prepared = await readRows<{ name: string }>(
      database.db,
      Prisma.sql`SELECT "name" FROM pg_prepared_statements`,
    );
    expect(prepared.map((row) => row.name)).toContain(statementName(statement(8).text));
  });

  it("off: reads the same rows and prepares nothing (for a pooler in transaction mode)", async () => {
    expect(await readRows(unprepared.db, statement(9))).toHaveLength(3);
    await unprepared.db.job.count();
    const names = await readRows(
      unprepared.db,
      Prisma.sql`SELECT "name" FROM pg_prepared_statements`,
    );
    expect(names).toEqual([]);
  });
});

describe("statementName", () => {
  it("is the text's own: equal texts share it, different texts never do", () => {
    expect(statementName("SELECT 1")).toBe(statementName("SELECT 1"));
    expect(statementName("SELECT 1")).not.toBe(statementName("SELECT 2"));
    expect(statementName("SELECT 1").length).toBeLessThanOrEqual(63);
    // The text's SHA-1, base64url, cut to 22 characters: the same name on every version.
    expect(statementName("SELECT 1")).toBe("s_QjZKAXtz71FqDsqYJ-b6AG");
  });
});
