// The server's PostgreSQL connections when the database goes away, on a private cluster
// (dev/postgres-cluster.ts) behind a TCP proxy (dev/tcp-proxy.ts): a crash, a fast stop and a
// network partition each fail queries with an error answered 503 (never a 500, never a hang,
// never the process's end), and the same client works again once the database is back; the
// commit listener (read caches across servers) notices and reconnects by itself.
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type PostgresCluster, startPostgresCluster } from "@/dev/postgres-cluster";
import { startTcpProxy, type TcpProxy } from "@/dev/tcp-proxy";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { toPublicError } from "@/lib/platform/errors";
import { isUnavailableError } from "@/lib/platform/unavailable";
import { openDatabase, type OpenDatabase } from "./client";
import { commitGeneration, listenForCommits } from "./commit-signal";
import { createPool, POOL_LIMITS } from "./pool";
import { migrateTarget } from "./setup";
import { resolveDbTarget } from "./target";

let cluster: PostgresCluster;
let proxy: TcpProxy;
let url: string;
let open: OpenDatabase;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  proxy = await startTcpProxy({ port: cluster.port });
  url = `postgresql://postgres@127.0.0.1:${proxy.port}/postgres`;
  await migrateTarget(resolveDbTarget({ DATABASE_URL: url }));
  open = await openDatabase(resolveDbTarget({ DATABASE_URL: url }));
}, 120_000);
afterAll(async () => {
  await open?.close().catch(() => undefined);
  await proxy?.close();
  await cluster?.destroy();
});

/** The rejection of `promise`, or a failure of the test when it resolves. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("the query succeeded with the database down"),
    (error: unknown) => error,
  );
}

/** The public answer for `error`, with the warning it logs kept out of the test's output. */
function answered(error: unknown) {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    return { answer: toPublicError(error, "pool test"), errors: logged.mock.calls.length };
  } finally {
    warn.mockRestore();
    logged.mockRestore();
  }
}

const expect503 = (error: unknown) => {
  expect(isUnavailableError(error), String(error)).toBe(true);
  const { answer, errors } = answered(error);
  expect(answer).toMatchObject({ status: 503, code: "unavailable" });
  expect(answer.headers["Retry-After"]).toMatch(/^\d+$/);
  expect(errors, "logged as an unhandled error").toBe(0);
};

describe("the pool when PostgreSQL goes away", () => {
  it.each(["immediate", "fast"] as const)(
    "a %s stop: queries and transactions answer 503, and work again once it is back",
    async (mode) => {
      const { db } = open;
      await db.job.count();
      await cluster.stop(mode);
      try {
        expect503(await failure(db.job.count()));
        expect503(await failure(db.job.count()));
        expect503(await failure(db.$transaction(async (tx) => tx.job.count(), { maxWait: 5_000 })));
        expect503(await failure(db.$queryRaw`SELECT 1`));
      } finally {
        await cluster.start();
      }
      // The same client, no reconnect by hand: the pool opens new connections.
      expect(await db.job.count()).toBe(0);
      expect(await db.$transaction(async (tx) => tx.job.count(), { maxWait: 5_000 })).toBe(0);
    },
  );

  it("a query in flight when the server dies answers 503 (57P01 or a cut connection)", async () => {
    const { db } = open;
    const sleeping = failure(db.$executeRaw`SELECT pg_sleep(5)`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await cluster.stop("fast");
    try {
      expect503(await sleeping);
    } finally {
      await cluster.start();
    }
    expect(await db.job.count()).toBe(0);
  });

  it("idle connections the server closes do not end the process", async () => {
    const { db } = open;
    // Several idle connections in the pool, then every one of them killed by the server.
    await Promise.all(Array.from({ length: 4 }, () => db.$executeRaw`SELECT pg_sleep(0.05)`));
    const admin = createPool(cluster.url(), { ...POOL_LIMITS, max: 1 });
    try {
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = 'postgres' AND backend_type = 'client backend'",
      );
    } finally {
      await admin.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await db.job.count()).toBe(0);
  });

  it("a partition: queries fail within the pool's bounds, the lost connection is closed", async () => {
    // Short bounds, so that the test waits seconds, not production's 10 s and 30 s.
    const limits = { ...POOL_LIMITS, connectionTimeoutMillis: 1_000, queryTimeoutMillis: 1_500 };
    const pool = createPool(url, limits);
    const db = new PrismaClient({ adapter: new PrismaPg(pool) });
    try {
      let started = 0;
      proxy.heal();
      // A transaction whose connection goes silent after its first answer.
      const lost = failure(
        db.$transaction(
          async (tx) => {
            await tx.job.count();
            proxy.partition("blackhole");
            started = Date.now();
            return tx.job.count();
          },
          { timeout: 10_000 },
        ),
      );
      try {
        expect503(await lost);
        // Failed at the query's timeout, and its rollback did not wait out another one: the
        // connection was closed, not handed back to the pool to wait behind the lost query.
        expect(pool.totalCount).toBe(0);
        expect(Date.now() - started).toBeLessThan(limits.queryTimeoutMillis * 3);
        // A new connection: the connect timeout.
        started = Date.now();
        expect503(await failure(db.job.count()));
        expect(Date.now() - started).toBeLessThan(limits.connectionTimeoutMillis * 3);
      } finally {
        proxy.heal();
      }
      expect(await db.job.count()).toBe(0);
    } finally {
      await db.$disconnect();
      await pool.end();
    }
  });
});

describe("the commit listener", () => {
  it("reconnects by itself after a restart and after a partition, caches off meanwhile", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const listener = listenForCommits(open.db, url);
    try {
      await listener.ready;
      expect(commitGeneration(open.db)).toEqual(expect.any(Number));

      await cluster.stop("immediate");
      await until(() => commitGeneration(open.db) === undefined, "the listener to notice");
      await cluster.start();
      await until(() => commitGeneration(open.db) !== undefined, "the listener to reconnect");

      // A partition says nothing: the heartbeat finds out, and the listener comes back after.
      proxy.partition("blackhole");
      try {
        await until(() => commitGeneration(open.db) === undefined, "the heartbeat to fail", 20_000);
      } finally {
        proxy.heal();
      }
      await until(() => commitGeneration(open.db) !== undefined, "the listener to reconnect");
      // One line when it lost the database, one when it was back: no stack per attempt.
      expect(warn.mock.calls.length).toBe(2);
      expect(info.mock.calls.length).toBe(2);
    } finally {
      await listener.stop();
      info.mockRestore();
      warn.mockRestore();
    }
  });
});

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
