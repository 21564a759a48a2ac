// How failures reach a client: the database queue that outlasts a write's wait is a 503 to
// retry (never a logged 500), on a real embedded database whose one connection is held.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/db";
import { DomainError, isTransactionQueueTimeout, toPublicError } from "./errors";
import { OUTAGE_LOG_EVERY_MS } from "./unavailable";

describe("a write that cannot get the database in time", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase("pglite");
  });
  afterAll(() => database?.close());

  it("is Prisma's P2028, answered 503 with Retry-After and logged as busy, not unhandled", async () => {
    const { db } = database;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    const holder = db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        started();
        await held;
      },
      { maxWait: 5_000, timeout: 10_000 },
    );
    await holding;

    const queued = await db
      .$transaction(async (tx) => tx.$queryRaw`SELECT 1`, { maxWait: 200, timeout: 1_000 })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    release();
    await holder;

    expect(isTransactionQueueTimeout(queued)).toBe(true);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect(toPublicError(queued, "test")).toEqual({
        status: 503,
        message: "the server is busy; retry shortly",
        code: "server_busy",
        headers: { "Retry-After": "2" },
      });
      expect(warn).toHaveBeenCalledOnce();
      expect(error).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it("other failures keep their meaning", () => {
    expect(isTransactionQueueTimeout(new Error("Unable to start a transaction"))).toBe(false);
    expect(
      isTransactionQueueTimeout({ code: "P2028", message: "Transaction already closed" }),
    ).toBe(false);
  });
});

describe("a database too busy for every request", () => {
  afterEach(() => vi.useRealTimers());

  it("logs one busy line per place every 10 s, the next counting those left out", () => {
    // node-postgres's error for a statement PostgreSQL cancelled past its statement_timeout.
    const cancelled = () =>
      Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const where = `test ${Math.random()}`;
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      for (let i = 0; i < 50; i++)
        expect(toPublicError(cancelled(), where).code).toBe("server_busy");
      expect(toPublicError(cancelled(), `${where} elsewhere`).code).toBe("server_busy");
      vi.setSystemTime(1_000_000 + OUTAGE_LOG_EVERY_MS);
      toPublicError(cancelled(), where);
      expect(warn.mock.calls.map(([line]) => line)).toEqual([
        `Busy in ${where}: PostgreSQL cancelled a statement (57014: canceling statement due to statement timeout); answered 503`,
        `Busy in ${where} elsewhere: PostgreSQL cancelled a statement (57014: canceling statement due to statement timeout); answered 503`,
        `Busy in ${where}: PostgreSQL cancelled a statement (57014: canceling statement due to statement timeout); answered 503 (49 more like it since the last line)`,
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});

describe("a dependency that is down", () => {
  it("is a 503 `unavailable` with Retry-After, logged as one warning and never as unhandled", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const where = `test ${Math.random()}`;
      expect(toPublicError(new Error("Connection terminated unexpectedly"), where)).toEqual({
        status: 503,
        message: "a service this request needs is not answering; retry shortly",
        code: "unavailable",
        headers: { "Retry-After": "2" },
      });
      expect(warn.mock.calls).toEqual([
        [`Dependency unavailable in ${where}: Connection terminated unexpectedly; answered 503`],
      ]);
      expect(error).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it("every 503 that passes carries Retry-After, its own when it has one", () => {
    expect(toPublicError(new DomainError("unavailable", "down"), "test").headers).toEqual({
      "Retry-After": "2",
    });
    const own = new DomainError("unavailable", "down", { "retry-after": "9" }, "chain_unavailable");
    expect(toPublicError(own, "test").headers).toEqual({ "retry-after": "9" });
    // Not configured is not an outage: nothing to come back for.
    const setting = new DomainError("unavailable", "no", {}, "protected_payments_unavailable");
    expect(toPublicError(setting, "test").headers).toEqual({});
    expect(toPublicError(new DomainError("conflict", "no"), "test").headers).toEqual({});
  });
});
