// Which failures mean "a dependency is down" (503, retry) and which are bugs (500): the shapes
// PostgreSQL's outages take through Prisma and node-postgres are produced for real in
// lib/db/pool.test.ts; here, the table of every shape, and what must never be taken for one.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ZodError } from "zod";
import { DomainError } from "./errors";
import {
  describeUnavailable,
  isStatementCancelled,
  isUnavailableError,
  logOutage,
  OUTAGE_LOG_EVERY_MS,
} from "./unavailable";

const prismaKnown = (code: string, cause: object) =>
  Object.assign(
    new Error("\nInvalid `prisma.job.count()` invocation:\n\n\nServer has closed the connection."),
    {
      name: "PrismaClientKnownRequestError",
      code,
      meta: { driverAdapterError: Object.assign(new Error("DriverAdapterError"), { cause }) },
    },
  );

describe("a dependency that is down", () => {
  it.each([
    ["pg: the server closed the connection", new Error("Connection terminated unexpectedly")],
    ["pg: connect timeout", new Error("Connection terminated due to connection timeout")],
    ["pg-pool: no connection in time", new Error("timeout exceeded when trying to connect")],
    ["pg: query_timeout", new Error("Query read timeout")],
    [
      "pg: a client already failed",
      new Error("Client has encountered a connection error and is not queryable"),
    ],
    ["Prisma P1001 (refused)", prismaKnown("P1001", { kind: "DatabaseNotReachable" })],
    ["Prisma P1017 (closed)", prismaKnown("P1017", { kind: "ConnectionClosed" })],
    ["Prisma P2024 (pool timeout)", Object.assign(new Error("pool"), { code: "P2024" })],
    ["57P01 admin_shutdown", prismaKnown("P2010", { kind: "postgres", originalCode: "57P01" })],
    ["57P03 cannot_connect_now", prismaKnown("P2010", { kind: "postgres", code: "57P03" })],
    ["53300 too_many_connections", prismaKnown("P2037", { kind: "TooManyConnections" })],
    ["08006 connection_failure", Object.assign(new Error("x"), { code: "08006" })],
    [
      "a socket refused, wrapped",
      new Error("fetch failed", {
        cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }),
      }),
    ],
    [
      "ioredis: offline past its retries",
      new Error(
        'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
      ),
    ],
    ["ioredis: command timeout", new Error("Command timed out")],
  ])("%s", (_name, error) => {
    expect(isUnavailableError(error)).toBe(true);
  });

  it.each([
    ["a unique violation", Object.assign(new Error("unique"), { code: "P2002" })],
    ["a missing table", prismaKnown("P2010", { kind: "TableDoesNotExist", originalCode: "42P01" })],
    ["a syntax error", Object.assign(new Error("syntax"), { code: "42601" })],
    ["a serialization failure", Object.assign(new Error("retry"), { code: "40001" })],
    ["a bug", new TypeError("Cannot read properties of undefined (reading 'id')")],
    ["a refusal", new DomainError("conflict", "no", {}, "conflict")],
    ["bad input", new ZodError([])],
    ["not an error at all", "Connection terminated unexpectedly"],
  ])("not %s", (_name, error) => {
    expect(isUnavailableError(error)).toBe(false);
  });

  it("is described in one line: the driver's codes and its last words, not Prisma's call site", () => {
    expect(describeUnavailable(prismaKnown("P1017", { kind: "ConnectionClosed" }))).toBe(
      "P1017 ConnectionClosed: Server has closed the connection.",
    );
    expect(describeUnavailable(new Error("Connection terminated unexpectedly"))).toBe(
      "Connection terminated unexpectedly",
    );
    expect(
      describeUnavailable(new Error("connect ECONNREFUSED http://rpc.example/key/secret")),
    ).not.toContain("secret");
  });
});

// The shapes are produced for real in lib/db/statement-timeout.test.ts (TEST_DATABASE_URL).
describe("a statement PostgreSQL cancelled (57014: its statement_timeout, or an operator)", () => {
  const timeout = {
    code: "57014",
    severity: "ERROR",
    message: "canceling statement due to statement timeout",
  };
  it.each([
    ["node-postgres", Object.assign(new Error(timeout.message), timeout)],
    [
      "through Prisma's driver adapter",
      prismaKnown("P2010", { kind: "postgres", originalCode: "57014", ...timeout }),
    ],
  ])("%s: cancelled, not an outage", (_name, error) => {
    expect(isStatementCancelled(error)).toBe(true);
    expect(isUnavailableError(error)).toBe(false);
  });

  it.each([
    ["an outage", prismaKnown("P2010", { kind: "postgres", originalCode: "57P01" })],
    ["a lock timeout", Object.assign(new Error("lock"), { code: "55P03" })],
    ["the client's own query timeout", new Error("Query read timeout")],
  ])("not %s", (_name, error) => {
    expect(isStatementCancelled(error)).toBe(false);
  });
});

describe("logOutage", () => {
  afterEach(() => vi.restoreAllMocks());

  it("logs a place's line at most every OUTAGE_LOG_EVERY_MS and counts what it left out", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const where = `test ${Math.random()}`;
    expect(logOutage(where, "down", 1_000)).toBe(true);
    expect(logOutage(where, "down", 1_500)).toBe(false);
    expect(logOutage(where, "down", 2_000)).toBe(false);
    expect(logOutage(`${where} elsewhere`, "down", 2_000)).toBe(true);
    expect(logOutage(where, "down", 1_000 + OUTAGE_LOG_EVERY_MS)).toBe(true);
    expect(warn.mock.calls.map(([line]) => line)).toEqual([
      `Dependency unavailable in ${where}: down`,
      `Dependency unavailable in ${where} elsewhere: down`,
      `Dependency unavailable in ${where}: down (2 more like it since the last line)`,
    ]);
  });
});
