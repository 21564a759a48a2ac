// The benchmark's Server-Timing counts every PostgreSQL round-trip of a request: those in a
// transaction (promise-style on a checked-out connection) and those outside one (Prisma then
// goes through pool.query, which calls the connection with a callback). Both used to be
// needed for the lifecycle's "server time vs db time" figure to mean anything.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type OpenDatabase } from "@/lib/db/client";
import { resolveDbTarget } from "@/lib/db/target";
import { withServerTiming } from "./server-timing";
import { createPostgresSchema, TEST_DATABASE_URL } from "@/tests/helpers/db";
import { migrateTarget } from "@/lib/db/setup";

const timing = (response: Response) => {
  const header = response.headers.get("server-timing") ?? "";
  return { queries: Number(/db;dur=[\d.]+;desc="(\d+) queries"/.exec(header)?.[1] ?? NaN) };
};

describe.runIf(TEST_DATABASE_URL)("Server-Timing on PostgreSQL", () => {
  let database: OpenDatabase;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const schema = await createPostgresSchema();
    drop = schema.dropSchema;
    const target = resolveDbTarget({ DATABASE_URL: schema.databaseUrl });
    await migrateTarget(target);
    database = await openDatabase(target, { timeQueries: true });
  });
  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it("counts the queries outside a transaction and those inside one, and only the request's", async () => {
    const { db } = database;
    const outside = await withServerTiming(async () => {
      await db.wallet.findMany();
      await db.$queryRawUnsafe("SELECT 1");
      return new Response(null);
    });
    expect(timing(outside).queries).toBe(2);

    const inside = await withServerTiming(async () => {
      await db.$transaction(async (tx) => tx.wallet.findMany());
      return new Response(null);
    });
    // BEGIN, the read, COMMIT.
    expect(timing(inside).queries).toBe(3);

    // More requests at once than the pool has connections (10): a waiting query gets its
    // connection from the request that released one, and is still counted for its own.
    const crowd = await Promise.all(
      Array.from({ length: 30 }, () =>
        withServerTiming(async () => {
          await db.$queryRawUnsafe("SELECT pg_sleep(0.02)::text");
          return new Response(null);
        }),
      ),
    );
    expect(crowd.map((response) => timing(response).queries)).toEqual(Array(30).fill(1));

    // A query of no request is counted nowhere (and does not fail).
    await db.wallet.findMany();
    const none = await withServerTiming(async () => new Response(null));
    expect(timing(none).queries).toBe(0);
  });
});
