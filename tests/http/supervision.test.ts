// A process that dies comes back, and one near its heap limit sheds load instead of dying
// (issue: abuse). `npm start` runs the app under its supervisor (server/supervisor.ts):
// here the same command, `server/main.ts --workers 1`, against the production build.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const workerPids = (logs: string) =>
  [...logs.matchAll(/\[supervisor\] worker (\d+) started/g)].map((match) => Number(match[1]));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("npm start's supervisor", () => {
  let server: RunningServer;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    // The embedded database, as `npm start` runs by default: one worker.
    const database = await prepareServerDatabase("pglite");
    cleanup = database.cleanup;
    server = await startServer(database.env, { serverArgs: ["--workers", "1"] });
  });
  afterAll(async () => {
    await server?.stop();
    await cleanup?.();
  });

  it("starts another worker when one is killed, says why, and serves again on the same port", async () => {
    const [first] = workerPids(server.logs());
    expect(first).toBeGreaterThan(0);
    expect(first).not.toBe(server.pid);
    // A request is in flight when the worker dies; requests keep coming.
    process.kill(first!, "SIGKILL");
    const second = await waitFor("a new worker", async () => workerPids(server.logs())[1]);
    expect(server.logs()).toContain(`[supervisor] worker ${first} was killed by SIGKILL after`);
    const answer = await waitFor("an answer", async () => {
      const response = await fetch(`${server.url}/api/v1/jobs?limit=1`);
      return response.ok ? response : undefined;
    });
    expect(answer.status).toBe(200);
    expect(isAlive(second)).toBe(true);
    expect(isAlive(server.pid)).toBe(true);

    // And again, for a crash (an uncaught error ends a worker with code 1, as heap exhaustion
    // ends it with a signal): the supervisor does not give up on a worker that had started.
    process.kill(second, "SIGKILL");
    await waitFor("a third worker", async () => workerPids(server.logs())[2]);
    await waitFor("an answer", async () =>
      (await fetch(`${server.url}/api/v1/jobs?limit=1`)).ok ? true : undefined,
    );
  });

  it("stops its workers when it is stopped", async () => {
    const pids = workerPids(server.logs());
    await server.stop();
    await waitFor("every worker gone", async () =>
      pids.every((pid) => !isAlive(pid)) ? true : undefined,
    );
    expect(isAlive(server.pid)).toBe(false);
  });
});

describe("load shedding near the heap limit", () => {
  it("answers 503 with Retry-After while the heap is over HEAP_SHED_PERCENT, and stays up", async () => {
    const database = await prepareServerDatabase("pglite");
    // A line every server's idle heap is over (5% of the default 512 MiB, under the ~75 MiB an
    // idle server holds): every request meets a server "near its limit". (A 128 MiB heap is
    // too small for the embedded database on Node 22: it died of it, answering nothing.)
    const server = await startServer(
      { ...database.env, HEAP_SHED_PERCENT: "5" },
      { ready: (status) => status === 503 },
    );
    try {
      for (const path of ["/api/v1/jobs", "/", "/api/mcp", "/api/ready"]) {
        const response = await fetch(`${server.url}${path}`);
        expect(response.status, path).toBe(503);
        expect(response.headers.get("retry-after")).toBe("5");
        expect(await response.json()).toEqual({
          error: "the server is busy; retry shortly",
          code: "server_busy",
        });
      }
      // Liveness is still answered: the process is alive, and recovers without a restart.
      const health = await fetch(`${server.url}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ data: { status: "ok" } });
      expect(server.logs()).toMatch(
        /Heap at \d+% of its limit \(\d+ MiB of \d+ MiB\): answering 503/,
      );
      expect(isAlive(server.pid)).toBe(true);
    } finally {
      await server.stop();
      await database.cleanup();
    }
  });
});
