// `npm start` on PostgreSQL runs several workers behind one port (issue 27, "Both cores"):
// `server/main.ts --workers 2`, the production build. Each worker has its own read cache, told
// of the other's writes by LISTEN/NOTIFY; a worker killed is started again while the other keeps
// the port answering; SIGTERM to the supervisor lets requests in flight finish. Timing is the
// benchmark's (tools/bench-workers.ts); this holds what must be true.
import http from "node:http";
import type { Socket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveDbTarget } from "@/lib/db/target";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import { createJob, signedInClient, validJobBody } from "@/tests/helpers/fixtures";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

const LIST = "/api/v1/jobs?status=open&limit=50";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Workers that said they serve (`> Ready on …, worker PID`), in order. */
const readyWorkers = (logs: string) =>
  [...logs.matchAll(/> Ready on \S+ \(production, worker (\d+)\)/g)].map((m) => Number(m[1]));

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

interface Answer {
  status: number;
  body: { data?: unknown };
}

/**
 * One keep-alive connection, kept: the supervisor hands each new connection to a worker, and
 * every request on this one is served by that worker (a request that would need another
 * connection throws instead).
 */
function pinnedConnection(baseUrl: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let socket: Socket | undefined;
  const request = (method: string, path: string, headers: http.OutgoingHttpHeaders, body = "") =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request(baseUrl + path, { method, agent, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on("socket", (next: Socket) => {
        if (socket && next !== socket) reject(new Error("the pinned connection was replaced"));
        socket = next;
      });
      req.on("error", reject);
      req.end(body);
    });
  return {
    get: (path: string) => request("GET", path, {}),
    post: (path: string, json: unknown, cookie: string) =>
      request("POST", path, { cookie, "content-type": "application/json" }, JSON.stringify(json)),
    close: () => agent.destroy(),
  };
}
type Pinned = ReturnType<typeof pinnedConnection>;

const idsOf = (answer: Answer) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body.data as { id: string }[]).map((job) => job.id);
};

/** The id of the job a 201 answer created. */
const createdId = (answer: Answer) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return (answer.body.data as { id: string }).id;
};

/** A request on a connection of its own (whichever worker the supervisor hands it to). */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      })
      .on("error", reject);
  });
}

describe.skipIf(!TEST_DATABASE_URL)("two workers behind one port (PostgreSQL)", () => {
  let server: RunningServer;
  let cleanup: () => Promise<void>;
  let sql: pg.Client;
  const pinned: Pinned[] = [];

  beforeAll(async () => {
    const database = await prepareServerDatabase("postgres");
    cleanup = database.cleanup;
    // An hour: only a commit can make a worker read again, never the entry's age.
    server = await startServer(
      { ...database.env, READ_CACHE_SECONDS: "3600" },
      { serverArgs: ["--workers", "2"] },
    );
    await waitFor("both workers ready", async () =>
      readyWorkers(server.logs()).length === 2 ? true : undefined,
    );
    const target = resolveDbTarget({ DATABASE_URL: database.env.DATABASE_URL });
    if (target.kind !== "postgres") throw new Error("the workers should run on PostgreSQL");
    sql = new pg.Client({ connectionString: target.connectionString });
    await sql.connect();
  });
  afterAll(async () => {
    for (const connection of pinned) connection.close();
    await sql?.end();
    await server?.stop();
    await cleanup?.();
  });

  it("a write answered by one worker is read at once by the other, whose cache it invalidates", async () => {
    const poster = await signedInClient(server.url);
    const first = await createJob(poster, { title: "Before the cache" });

    // Worker X caches the list (the first read of it anywhere).
    const onX = pinnedConnection(server.url);
    pinned.push(onX);
    expect(idsOf(await onX.get(LIST))).toEqual([first.id]);
    // A row written behind the workers' backs (no event, no notification): X keeps answering
    // from its cache, which shows the cache is in use...
    await sql.query(
      `INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic",
         "timelineDays", "requirements", "handle", "posterAddress")
       VALUES ('job_unannounced00', 'Unannounced', 'Written by SQL.', 'research', 5000000, 1,
               '{}', '@sql', $1)`,
      [poster.account!.address],
    );
    expect(idsOf(await onX.get(LIST))).toEqual([first.id]);
    // ...and a connection that sees it is served by the other worker, Y, which had not read
    // the list yet (and now caches it).
    const onY = await waitFor("a connection to the other worker", async () => {
      const connection = pinnedConnection(server.url);
      pinned.push(connection);
      if (idsOf(await connection.get(LIST)).includes("job_unannounced00")) return connection;
      connection.close();
      return undefined;
    });
    expect(idsOf(await onX.get(LIST))).toEqual([first.id]);

    // A job posted through X: X reads its own write at once; Y is told by X's NOTIFY.
    const postedId = createdId(
      await onX.post("/api/v1/jobs", validJobBody({ title: "Posted on X" }), poster.cookie!),
    );
    expect(idsOf(await onX.get(LIST))).toEqual(
      expect.arrayContaining([postedId, "job_unannounced00", first.id]),
    );
    // Within seconds, where the cached entry had an hour: told, not expired.
    const seenOnY = await waitFor(
      "Y to read the job posted on X",
      async () => {
        const ids = idsOf(await onY.get(LIST));
        return ids.includes(postedId) ? ids : undefined;
      },
      5_000,
    );
    expect(seenOnY.slice(0, 3).sort()).toEqual([postedId, "job_unannounced00", first.id].sort());

    // And the other way: a job posted through Y reaches X's cached list.
    const backId = createdId(
      await onY.post("/api/v1/jobs", validJobBody({ title: "Posted on Y" }), poster.cookie!),
    );
    await waitFor(
      "X to read the job posted on Y",
      async () => (idsOf(await onX.get(LIST))[0] === backId ? true : undefined),
      5_000,
    );
  });

  it("a worker killed is started again, and the port answers all along", async () => {
    const [victim, survivor] = readyWorkers(server.logs());
    expect(victim).toBeGreaterThan(0);
    expect(survivor).toBeGreaterThan(0);
    process.kill(victim!, "SIGKILL");
    // Once the supervisor knows, every connection goes to the survivor while the new worker
    // starts (Next.js takes seconds to load): none is refused or dropped.
    await waitFor("the supervisor to notice", async () =>
      server.logs().includes(`[supervisor] worker ${victim} was killed by SIGKILL after`)
        ? true
        : undefined,
    );
    const statuses: number[] = [];
    while (readyWorkers(server.logs()).length < 3) {
      statuses.push(await freshGet(`${server.url}/api/v1/jobs?limit=1`));
      await sleep(20);
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const replacement = readyWorkers(server.logs())[2]!;
    expect(isAlive(victim!)).toBe(false);
    expect(isAlive(survivor!)).toBe(true);
    expect(isAlive(replacement)).toBe(true);
    for (let i = 0; i < 6; i++)
      expect(await freshGet(`${server.url}/api/v1/jobs?limit=1`)).toBe(200);
  });

  it("SIGTERM to the supervisor drains: a request in flight is answered, then every process exits", async () => {
    const workers = readyWorkers(server.logs()).filter(isAlive);
    expect(workers).toHaveLength(2);
    // A long-poll holds its request open for two seconds, on a worker.
    const started = Date.now();
    const inFlight = fetch(`${server.url}/api/v1/events?after=latest&wait=2`);
    await sleep(500);
    process.kill(server.pid, "SIGTERM");
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ data: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    await waitFor(
      "every process gone",
      async () => ([server.pid, ...workers].some(isAlive) ? undefined : true),
      15_000,
    );
    // Stopping is not dying: no worker was started again.
    expect(readyWorkers(server.logs())).toHaveLength(3);
    expect(server.logs().match(/starting another/g)).toHaveLength(1);
  });
});
