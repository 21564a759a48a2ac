// Redis (REDIS_URL: the shared rate-limit counters) killed and started again under a running
// server: writes and sign-ins, which wait for the shared count, answer 503 with Retry-After
// (a limit is never skipped), reads go on (counted in memory, added to Redis once it is back),
// and the same server takes writes again within seconds of Redis's return. A Redis of the
// test's own on a free port: the machine's shared one is never touched.
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/dev/free-port";
import { ApiClient } from "@/tests/helpers/api";
import { eventually } from "@/tests/helpers/chaos";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "@/tests/helpers/db";
import { validJobBody } from "@/tests/helpers/fixtures";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";

failOnServerErrors();

const KIND = TEST_DATABASE_URL ? "postgres" : "pglite";

/** redis-server on `port`, answering once it accepts connections. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  await eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect(port, "127.0.0.1");
        socket.once("connect", () => resolve(true)).once("error", () => resolve(false));
        socket.once("close", () => socket.destroy());
        socket.setTimeout(500, () => socket.destroy());
        socket.once("connect", () => socket.end());
      }),
    "redis-server to listen",
  );
  return child;
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  return exited;
}

// The suites that use Redis run where TEST_REDIS_URL says one is installed (CI).
describe.skipIf(!TEST_REDIS_URL)("Redis killed and started again under a running server", () => {
  let port: number;
  let redis: ChildProcess;
  let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
  let server: RunningServer;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    database = await prepareServerDatabase(KIND);
    server = await startServer({ ...database.env, REDIS_URL: `redis://127.0.0.1:${port}` });
  });

  afterAll(async () => {
    await server?.stop();
    if (redis) await kill(redis);
    await database?.cleanup();
  });

  it("writes answer 503 + Retry-After while it is down, reads go on, writes resume by themselves", async () => {
    const poster = await new ApiClient(
      server.url,
      privateKeyToAccount(generatePrivateKey()),
    ).signIn();
    expect((await poster.post("/api/v1/jobs", validJobBody())).status).toBe(201);

    await kill(redis);
    const write = await poster.post("/api/v1/jobs", validJobBody());
    expect(write.status).toBe(503);
    expect(write.body).toEqual({
      error: "rate limiting is unavailable; retry shortly",
      code: "unavailable",
    });
    expect(write.headers.get("retry-after")).toMatch(/^\d+$/);
    const nonce = await poster.get("/api/auth/nonce");
    expect(nonce.status).toBe(503);
    expect(nonce.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await poster.get("/api/v1/jobs?limit=1")).status).toBe(200);

    redis = await startRedis(port);
    let status = 0;
    await eventually(
      async () => {
        status = (await poster.post("/api/v1/jobs", validJobBody())).status;
        return status === 201;
      },
      "a write to succeed once Redis is back",
      15_000,
    );
    expect(status).toBe(201);
    expect((await poster.get("/api/auth/nonce")).status).toBe(200);
  });
});
