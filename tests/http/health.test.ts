// The load balancer's probes against the production app server: GET /api/health answers 200
// whatever is down, GET /api/ready lists every check and answers 503 not_ready (Retry-After)
// within about two seconds when a dependency is down: Redis on a dead port, the chain's RPC or
// (on PostgreSQL) the database behind a TCP proxy that is cut. Neither is rate limited, neither
// says where anything is.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "@/dev/free-port";
import { startTcpProxy, type TcpProxy } from "@/dev/tcp-proxy";
import { ApiClient } from "@/tests/helpers/api";
import { DB_KINDS, TEST_DATABASE_URL, TEST_REDIS_URL } from "@/tests/helpers/db";
import { failOnServerErrors } from "@/tests/helpers/server-logs";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

failOnServerErrors();

/** Starts a server on a fresh database of `kind` with `env` on top; stopped after the file. */
function useServer(kind: "pglite" | "postgres", env: () => Promise<Record<string, string>>) {
  const state: { server?: RunningServer; client?: ApiClient } = {};
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    state.server = await startServer({ ...database.env, ...(await env()) });
    state.client = new ApiClient(state.server.url);
  });
  afterAll(async () => {
    await state.server?.stop();
    await cleanup?.();
  });
  return state;
}

async function timed<T>(call: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now();
  const answer = await call();
  return { answer, ms: performance.now() - started };
}

/** Nothing of the configuration: no URL, no port of a dependency, no key. */
function expectNoConfiguration(text: string, secrets: string[]) {
  expect(text).not.toMatch(/https?:\/\/|redis:\/\/|postgres(ql)?:\/\//);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describe.each(DB_KINDS)("health and readiness on %s, everything up", (kind) => {
  const redisPrefix = `health-${Date.now()}-${kind}:`;
  const up = useServer(kind, async () => ({
    // The read limit is live, and low: the probes must pass it by.
    RATE_LIMIT_READS_PER_MINUTE: "5",
    ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix } : {}),
  }));

  it("GET /api/health: 200 at once, the process's uptime and version", async () => {
    const health = await up.client!.get("/api/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      data: { status: "ok", uptimeSeconds: expect.any(Number), version: expect.any(String) },
    });
    expect(health.headers.get("cache-control")).toBe("no-store");
  });

  it("GET /api/ready: 200 with every check, each ok with its latency", async () => {
    const ready = await up.client!.get("/api/ready");
    expect(ready.status).toBe(200);
    const names = ["database", "chain", "facilitator", ...(TEST_REDIS_URL ? ["redis"] : [])];
    expect(ready.body).toEqual({
      data: {
        status: "ready",
        checks: names.map((name) => ({ name, ok: true, latencyMs: expect.any(Number) })),
      },
    });
    expectNoConfiguration(JSON.stringify(ready.body), [up.server!.env.CHAIN_RPC_URL!]);
  });

  it("neither probe is rate limited, while the API's reads are", async () => {
    for (let i = 0; i < 12; i++) {
      expect((await up.client!.get("/api/health")).status).toBe(200);
      expect((await up.client!.get("/api/ready")).status).toBe(200);
    }
    const reads = [];
    for (let i = 0; i < 8; i++) reads.push((await up.client!.get("/api/v1/jobs?limit=1")).status);
    expect(reads).toContain(429);
  });
});

describe("Redis on a dead port: 503 not_ready naming it, within about two seconds", () => {
  const redisPassword = "redis-password-not-to-be-shown";
  const deadRedis = useServer("pglite", async () => ({
    REDIS_URL: `redis://:${redisPassword}@127.0.0.1:${await freePort()}`,
  }));

  it("lists every check, Redis failing", async () => {
    // Timed warm, as the other partitions are: a new server's first request loads the route
    // and its clients (up to a second more on a slow machine, seen in CI), which is not the
    // check's timeout. A second on, the first answer (reused for one second) has expired.
    expect((await deadRedis.client!.get("/api/ready")).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const { answer: ready, ms } = await timed(() => deadRedis.client!.get("/api/ready"));
    expect(ms).toBeLessThan(2_000);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("retry-after")).toBe("5");
    expect(ready.body).toEqual({
      error: "not ready: redis did not answer",
      code: "not_ready",
      data: {
        status: "not_ready",
        checks: [
          { name: "database", ok: true, latencyMs: expect.any(Number) },
          { name: "chain", ok: true, latencyMs: expect.any(Number) },
          { name: "facilitator", ok: true, latencyMs: expect.any(Number) },
          {
            name: "redis",
            ok: false,
            latencyMs: expect.any(Number),
            error: expect.stringMatching(/^Redis did not answer/),
          },
        ],
      },
    });
    expectNoConfiguration(JSON.stringify(ready.body), [redisPassword]);
    expect((await deadRedis.client!.get("/api/health")).status).toBe(200);
  });
});

describe("the chain's RPC gone: the chain and the in-process facilitator", () => {
  // A production server refuses to start without its chain: it loses it afterwards, through a
  // TCP proxy the test cuts (new connections refused, as a dead port).
  let proxy: TcpProxy | undefined;
  const server = useServer("pglite", async () => {
    const chain = new URL(inject("testChainRpcUrl"));
    proxy = await startTcpProxy({ host: chain.hostname, port: Number(chain.port) });
    return { CHAIN_RPC_URL: `http://127.0.0.1:${proxy.port}` };
  });
  afterAll(() => proxy?.close());

  it("503 naming both within about two seconds, 200 again once it is back", async () => {
    expect((await server.client!.get("/api/ready")).status).toBe(200);
    proxy!.partition("drop");
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the reused answer
    const { answer: ready, ms } = await timed(() => server.client!.get("/api/ready"));
    expect(ms).toBeLessThan(2_000);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("retry-after")).toBe("5");
    expect(ready.body).toMatchObject({
      code: "not_ready",
      error: "not ready: chain, facilitator did not answer",
      data: {
        status: "not_ready",
        checks: [
          { name: "database", ok: true },
          { name: "chain", ok: false, error: "the chain RPC did not answer" },
          { name: "facilitator", ok: false, error: "the facilitator's RPC did not answer" },
        ],
      },
    });
    expectNoConfiguration(JSON.stringify(ready.body), [String(proxy!.port)]);
    expect((await server.client!.get("/api/health")).status).toBe(200);
    proxy!.heal();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await server.client!.get("/api/ready")).status).toBe(200);
  });
});

describe.runIf(TEST_DATABASE_URL)("the database partitioned away (PostgreSQL)", () => {
  let proxy: TcpProxy | undefined;
  let server: RunningServer | undefined;
  let client: ApiClient;
  let cleanup: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // The server reaches its database through a TCP proxy the test can cut.
    const database = await prepareServerDatabase("postgres");
    cleanup = database.cleanup;
    const url = new URL(database.env.DATABASE_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    server = await startServer({ DATABASE_URL: url.toString() });
    client = new ApiClient(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await cleanup?.();
  });

  it("health answers, readiness names the database, and recovers when healed", async () => {
    expect((await client.get("/api/ready")).status).toBe(200);
    for (const mode of ["drop", "blackhole"] as const) {
      proxy!.partition(mode);
      expect((await client.get("/api/health")).status).toBe(200);
      // A second on: the last answer (reused for one second) has expired.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const { answer: ready, ms } = await timed(() => client.get("/api/ready"));
      expect(ms).toBeLessThan(2_000);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({
        code: "not_ready",
        data: {
          checks: [
            { name: "database", ok: false },
            { name: "chain", ok: true },
            { name: "facilitator", ok: true },
          ],
        },
      });
      expect((await client.get("/api/health")).status).toBe(200);
      proxy!.heal();
      // Back once the pool has new connections.
      let status = 0;
      for (let i = 0; i < 40 && status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        status = (await client.get("/api/ready")).status;
      }
      expect(status).toBe(200);
    }
  });
});
