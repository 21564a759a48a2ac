// How failures reach a client: the database queue that outlasts a write's wait is a 503 to
// retry (never a logged 500), on a real embedded database whose one connection is held.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/db";
import { isTransactionQueueTimeout, toPublicError } from "./errors";

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
