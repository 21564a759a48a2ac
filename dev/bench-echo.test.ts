// The benchmark's floor statement (dev/bench-echo.ts): the answer PostgreSQL sends back is as
// long as the stored echo it stands for, on PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { databaseRoundTrip } from "./bench-echo";

describe.each(DB_KINDS)("the database's floor on %s", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database.close();
  });

  it("reads back as many bytes as it is asked for", async () => {
    for (const bytes of [0, 807, 40_148, 1_000_000]) {
      expect(await databaseRoundTrip(database.db, bytes)).toBe(bytes);
    }
  });
});
