// The benchmark's echo hook (/api/dev/echo, /api/dev/echo-write) and Server-Timing: present
// only on a test server started with BENCHMARK_MODE=true, an unknown endpoint otherwise.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { ApiClient } from "@/tests/helpers/api";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import { validJob } from "@/tests/helpers/contract";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

describe("the benchmark's echo hook exists only with BENCHMARK_MODE=true", () => {
  // Test servers (--test, NODE_ENV=test, as the benchmark runs them): production refuses the
  // switch outright (tests/http/settlement.test.ts), so only here can it be on or off.
  const servers: RunningServer[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  async function testServer(env: Record<string, string>) {
    const database = await prepareServerDatabase("pglite");
    cleanups.push(database.cleanup);
    const server = await startServer({ ...database.env, NODE_ENV: "test", ...env });
    servers.push(server);
    return server;
  }
  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const cleanup of cleanups) await cleanup();
  });

  it("off (the default): /api/dev/echo is an unknown endpoint (404) for GET, its floor and POST", async () => {
    const server = await testServer({});
    const client = new ApiClient(server.url);
    for (const response of [
      await client.get("/api/dev/echo?key=list"),
      await client.get("/api/dev/echo?key=list&floor=1"),
      await client.post("/api/dev/echo?key=list", { data: [] }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: "no such API endpoint", code: "not_found" });
    }
  });

  it("on: it stores and serves the bytes it is given", async () => {
    const server = await testServer({ BENCHMARK_MODE: "true" });
    const client = new ApiClient(server.url);
    const stored = await client.post("/api/dev/echo?key=list", { data: [1, 2] });
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual({ data: { key: "list", bytes: 14 } });
    expect((await client.get("/api/dev/echo?key=list")).body).toEqual({ data: [1, 2] });
  });

  it.runIf(TEST_DATABASE_URL)(
    "on, PostgreSQL: &floor=1 serves the same bytes after one statement",
    async () => {
      const database = await prepareServerDatabase("postgres");
      cleanups.push(database.cleanup);
      const server = await startServer({
        ...database.env,
        NODE_ENV: "test",
        BENCHMARK_MODE: "true",
      });
      servers.push(server);
      const client = new ApiClient(server.url);
      await client.post("/api/dev/echo?key=list", { data: "x".repeat(100_000) });
      const plain = await client.get("/api/dev/echo?key=list");
      const floor = await client.get("/api/dev/echo?key=list&floor=1");
      expect(floor.status).toBe(200);
      expect(floor.body).toEqual(plain.body);
      expect(plain.headers.get("server-timing")).toMatch(/desc="0 queries"/);
      expect(floor.headers.get("server-timing")).toMatch(/desc="1 queries"/);
      // Only floor=1: a misspelt switch would measure the ceiling as the floor.
      const misspelt = await client.get("/api/dev/echo?key=list&floor=true");
      expect(misspelt.status).toBe(400);
      expect(misspelt.body).toMatchObject({ code: "invalid_request" });
    },
  );

  it("on: the write echo checks the caller as POST /api/v1/jobs does; answers carry Server-Timing", async () => {
    const server = await testServer({ BENCHMARK_MODE: "true" });
    const anon = new ApiClient(server.url);
    expect((await anon.post("/api/dev/echo?key=write", { data: { id: "job_x" } })).status).toBe(
      200,
    );
    const refused = await anon.post("/api/dev/echo-write", validJob);
    expect(refused.status).toBe(401);
    const poster = await new ApiClient(
      server.url,
      privateKeyToAccount(generatePrivateKey()),
    ).signIn();
    const echoed = await poster.post("/api/dev/echo-write", validJob);
    expect(echoed.status).toBe(201);
    expect(echoed.body).toEqual({ data: { id: "job_x" } });
    const posted = await poster.post("/api/v1/jobs", validJob);
    expect(posted.status).toBe(201);
    // total, then the database's share (its PostgreSQL round-trips; PGlite has none), then
    // the chain's.
    expect(posted.headers.get("server-timing")).toMatch(
      /^total;dur=[\d.]+, db;dur=[\d.]+;desc="\d+ queries", chain;dur=[\d.]+;desc="0 calls"$/,
    );
  });

  it("off: no write echo (404) and no Server-Timing", async () => {
    const server = await testServer({});
    const poster = await new ApiClient(
      server.url,
      privateKeyToAccount(generatePrivateKey()),
    ).signIn();
    const echo = await poster.post("/api/dev/echo-write", validJob);
    expect(echo.status).toBe(404);
    expect(echo.body).toEqual({ error: "no such API endpoint", code: "not_found" });
    const posted = await poster.post("/api/v1/jobs", validJob);
    expect(posted.status).toBe(201);
    expect(posted.headers.get("server-timing")).toBeNull();
  });
});
