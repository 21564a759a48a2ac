// PostgreSQL's own bound on a statement (statement_timeout, lib/db/pool.ts), on the PostgreSQL of
// TEST_DATABASE_URL: a statement past it is ended by the database itself, not abandoned by the
// client while it goes on running, the connection stays usable, and the request is answered
// 503 server_busy with Retry-After and logged as one warning line. The migration runner's
// connection keeps the server's own setting (no bound).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { toPublicError } from "@/lib/platform/errors";
import { isStatementCancelled, isUnavailableError } from "@/lib/platform/unavailable";
import { createPostgresSchema, TEST_DATABASE_URL } from "@/tests/helpers/db";
import { openDatabase, type OpenDatabase } from "./client";
import { createPool, POOL_LIMITS } from "./pool";
import { migrateTarget } from "./setup";
import { openPgSession } from "./sql";
import { type DbTarget, resolveDbTarget } from "./target";

/** Short enough for a test; the statements below would run for seconds without it. */
const SHORT_MS = 300;

/** The rejection of `promise`, or a failure of the test when it resolves. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("the statement ran to its end: nothing cancelled it"),
    (error: unknown) => error,
  );
}

// Each case its own place: the busy line is logged once per place every 10 s.
let cases = 0;

/** `error` is answered 503 server_busy with Retry-After, logged as one line and no stack. */
function expectBusy(error: unknown) {
  const where = `statement timeout test ${++cases}`;
  expect(isStatementCancelled(error), String(error)).toBe(true);
  expect(isUnavailableError(error), "taken for an outage").toBe(false);
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    expect(toPublicError(error, where)).toEqual({
      status: 503,
      message: "the server is busy; retry shortly",
      code: "server_busy",
      headers: { "Retry-After": "2" },
    });
    expect(logged).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledOnce();
    const line = warn.mock.calls[0]!;
    expect(line).toHaveLength(1);
    expect(line[0]).toMatch(new RegExp(`^Busy in ${where}: PostgreSQL cancelled a statement`));
    expect(line[0]).toContain("57014");
    expect(line[0]).not.toContain("\n");
  } finally {
    warn.mockRestore();
    logged.mockRestore();
  }
}

describe.runIf(TEST_DATABASE_URL)("statement_timeout on the app's PostgreSQL pool", () => {
  let target: DbTarget & { kind: "postgres" };
  let database: OpenDatabase;
  let admin: pg.Client;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const schema = await createPostgresSchema();
    drop = schema.dropSchema;
    target = resolveDbTarget({ DATABASE_URL: schema.databaseUrl }) as typeof target;
    await migrateTarget(target);
    database = await openDatabase(target, { statementTimeoutMillis: SHORT_MS });
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await admin?.end();
    await drop?.();
  });

  it("is set on the pool's connections: 15 s unless told, and what openDatabase is given", async () => {
    const pool = createPool(target.connectionString);
    try {
      expect((await pool.query("SHOW statement_timeout")).rows).toEqual([
        { statement_timeout: "15s" },
      ]);
    } finally {
      await pool.end();
    }
    expect(await database.db.$queryRaw`SHOW statement_timeout`).toEqual([
      { statement_timeout: `${SHORT_MS}ms` },
    ]);
  });

  it("PostgreSQL itself cancels a statement past it, and its connection goes on", async () => {
    const name = `statement-timeout-${randomBytes(4).toString("hex")}`;
    const url = new URL(target.connectionString);
    url.searchParams.set("application_name", name);
    const pool = createPool(url.toString(), { ...POOL_LIMITS, statementTimeoutMillis: SHORT_MS });
    // A checked-out connection, as a transaction's (pool.query's own are the next test's).
    const client = await pool.connect();
    try {
      const pid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      const started = Date.now();
      const error = await failure(client.query("SELECT pg_sleep(5)"));
      // The server's answer (an ErrorResponse: SQLSTATE and severity), long before the
      // client's own 30 s query timeout.
      expect(error).toMatchObject({ code: "57014", severity: "ERROR" });
      expect(Date.now() - started).toBeLessThan(3_000);
      // Its backend stopped the statement and waits, idle, for the next one on the same
      // connection: nothing runs on in the database. The backend reports itself idle just
      // after it answers, so on a loaded machine pg_stat_activity may still say "active" for a
      // moment: asked again until it says idle (within a second, long before pg_sleep's 5 s).
      const activity = async () =>
        (
          await admin.query(
            "SELECT pid, state, query FROM pg_stat_activity WHERE application_name = $1",
            [name],
          )
        ).rows;
      await expect
        .poll(activity, { timeout: 1_000, interval: 50 })
        .toEqual([{ pid, state: "idle", query: "SELECT pg_sleep(5)" }]);
      expect((await client.query("SELECT pg_backend_pid() AS pid")).rows).toEqual([{ pid }]);
      expectBusy(error);
    } finally {
      client.release();
      await pool.end();
    }
  });

  it("pool.query (Prisma outside a transaction, the row reader): an error PostgreSQL answers keeps the connection; one that ends it is replaced", async () => {
    const pool = createPool(target.connectionString, {
      ...POOL_LIMITS,
      max: 1,
      statementTimeoutMillis: SHORT_MS,
    });
    const backend = async () =>
      (await pool.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
    try {
      const pid = await backend();
      // A statement's error, a cancelled statement, a named statement's bad parameter (each
      // one statement: parameters or a name send it with the extended protocol).
      expect(await failure(pool.query("SELECT 1/$1::int", [0]))).toMatchObject({ code: "22012" });
      expectBusy(await failure(pool.query("SELECT pg_sleep($1)", [5])));
      const named = { name: "pool_keeps", text: "SELECT $1::int AS n", values: ["x"] };
      expect(await failure(pool.query(named))).toMatchObject({ code: "22P02" });
      expect((await pool.query({ ...named, values: ["7"] })).rows).toEqual([{ n: 7 }]);
      expect(await backend()).toBe(pid);
      // A text of several statements that failed inside the transaction it opened: dropped, so
      // that nobody inherits the aborted transaction.
      const opened = await failure(pool.query("BEGIN; SELECT 1/0"));
      expect(opened).toMatchObject({ code: "22012" });
      const next = await backend();
      expect(next).not.toBe(pid);
      expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      // The backend ended (an administrator, a restart): FATAL, the connection is dropped and
      // the next query opens another.
      const ended = await failure(pool.query("SELECT pg_terminate_backend(pg_backend_pid())"));
      expect(ended).toMatchObject({ code: "57P01", severity: "FATAL" });
      expect(await backend()).not.toBe(next);
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it("through Prisma: a raw statement, a write stuck behind a lock, a transaction: 503 server_busy", async () => {
    const { db } = database;
    expectBusy(await failure(db.$executeRaw`SELECT pg_sleep(5)`));

    // A model write waiting for a row another connection holds: the wait counts.
    const address = `0x${randomBytes(20).toString("hex")}`;
    await db.wallet.create({ data: { address } });
    await admin.query("BEGIN");
    try {
      await admin.query(`SELECT 1 FROM ${target.schema}.wallets WHERE address = $1 FOR UPDATE`, [
        address,
      ]);
      expectBusy(await failure(db.wallet.update({ where: { address }, data: { verified: true } })));
    } finally {
      await admin.query("ROLLBACK");
    }

    // In an interactive transaction: cancelled, and what it wrote before is undone.
    const other = `0x${randomBytes(20).toString("hex")}`;
    expectBusy(
      await failure(
        db.$transaction(async (tx) => {
          await tx.wallet.create({ data: { address: other } });
          await tx.$executeRaw`SELECT pg_sleep(5)`;
        }),
      ),
    );
    expect(await db.wallet.findUnique({ where: { address: other } })).toBeNull();
    expect(await db.wallet.findUnique({ where: { address } })).toMatchObject({ verified: false });
  });

  it("the migration runner's connection is not bounded: the server's own setting", async () => {
    const serverDefault = (await admin.query("SHOW statement_timeout")).rows[0].statement_timeout;
    const session = await openPgSession(target.connectionString, target.schema);
    try {
      expect(await session.query("SHOW statement_timeout")).toEqual([
        { statement_timeout: serverDefault },
      ]);
    } finally {
      await session.close();
    }
  });
});
