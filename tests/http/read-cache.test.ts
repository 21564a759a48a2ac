// Public reads over HTTP: ETag / If-None-Match → 304 on the job list and one job, and the read
// cache behind them (lib/kernel/read-cache.ts), which must never answer from before a
// commit the server was told of: its own writes at once, another server's through
// PostgreSQL's LISTEN/NOTIFY.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveDbTarget } from "@/lib/db/target";
import { ApiClient, type ApiResponse } from "@/tests/helpers/api";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import {
  createJob,
  expectStatus,
  jobInProgress,
  makeCast,
  openJobWithProposal,
  paySettlement,
  sameSessionOn,
  signedInClient,
} from "@/tests/helpers/fixtures";
import { startTestMarket, type TestMarket } from "@/tests/helpers/market";
import { startServer, type RunningServer } from "@/tests/helpers/server";

const LIST = "/api/v1/jobs?status=open&limit=50";
const REVALIDATE = "public, max-age=0, must-revalidate";

const idsOf = (response: ApiResponse) =>
  (expectStatus(response, 200) as { data: { id: string }[] }).data.map((job) => job.id);

function expectRevalidated(response: ApiResponse, status: 200 | 304) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get("cache-control")).toBe(REVALIDATE);
  const etag = response.headers.get("etag");
  expect(etag).toMatch(/^"[\w-]{32}"$/);
  return etag!;
}

describe("ETag and 304 on public reads", () => {
  let market: TestMarket;
  let anon: ApiClient;

  beforeAll(async () => {
    market = await startTestMarket("pglite");
    anon = new ApiClient(market.server.url);
  });
  afterAll(async () => {
    await market?.stop();
  });

  it("the list answers 304 without a body for its current ETag, and 200 once a job is posted", async () => {
    const poster = await signedInClient(market.server.url);
    await createJob(poster, { title: "First job" });
    const first = await anon.get(LIST);
    const etag = expectRevalidated(first, 200);

    const again = await anon.get(LIST, { "if-none-match": etag });
    expect(expectRevalidated(again, 304)).toBe(etag);
    expect(again.body).toBeUndefined();
    // Weak comparison, lists and `*`, as RFC 9110 says for If-None-Match.
    for (const header of [`W/${etag}`, `"other", ${etag}`, "*"]) {
      expectRevalidated(await anon.get(LIST, { "if-none-match": header }), 304);
    }
    // Another entity tag is not a match, nor is the tag of another answer (an empty category).
    expectRevalidated(await anon.get(LIST, { "if-none-match": '"other"' }), 200);
    const otherQuery = await anon.get(`${LIST}&category=legal`, { "if-none-match": etag });
    expect(expectRevalidated(otherQuery, 200)).not.toBe(etag);
    expect(otherQuery.body.data).toEqual([]);

    // The poster's write is visible at once through the same server, with a new ETag.
    const posted = await createJob(poster, { title: "Second job" });
    const after = await anon.get(LIST, { "if-none-match": etag });
    expect(expectRevalidated(after, 200)).not.toBe(etag);
    expect(idsOf(after)[0]).toBe(posted.id);
    expect(after.body.data).toHaveLength(first.body.data.length + 1);
  });

  it("one job: 304 while unchanged, 200 with its new state after each transition", async () => {
    const cast = await makeCast(market);
    const { job, proposal } = await openJobWithProposal(cast);
    const path = `/api/v1/jobs/${job.id}` as const;
    const open = await anon.get(path);
    const etag = expectRevalidated(open, 200);
    expect(open.body.data).toEqual(job);
    expectRevalidated(await anon.get(path, { "if-none-match": etag }), 304);

    const txHash = await paySettlement(cast, job.id, proposal.id);
    expectStatus(
      await cast.poster.post(`${path}/accept`, { proposalId: proposal.id, txHash }),
      200,
    );
    const accepted = await anon.get(path, { "if-none-match": etag });
    const acceptedTag = expectRevalidated(accepted, 200);
    expect(accepted.body.data).toMatchObject({ status: "in_progress", paymentTxHash: txHash });

    expectStatus(await cast.operator.post(`${path}/deliver`, {}), 200);
    const delivered = await anon.get(path, { "if-none-match": acceptedTag });
    expectRevalidated(delivered, 200);
    expect(delivered.body.data.status).toBe("delivered");
  });

  it("a job the poster's completion verifies shows posterVerified on every list and job at once", async () => {
    const cast = await makeCast(market);
    const other = await createJob(cast.poster, { title: "Another job of the same poster" });
    const { job } = await jobInProgress(cast);
    const before = await anon.get(`/api/v1/jobs/${other.id}`);
    expect(before.body.data.posterVerified).toBe(false);
    const listed = await anon.get(LIST);
    expect(listed.body.data.find((row: { id: string }) => row.id === other.id)).toMatchObject({
      posterVerified: false,
    });

    expectStatus(await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`, {}), 200);
    expectStatus(await cast.poster.post(`/api/v1/jobs/${job.id}/complete`, { rating: 5 }), 200);
    // Completing one job verifies its poster: a change to other jobs' views, which the
    // cache must not hide.
    expect((await anon.get(`/api/v1/jobs/${other.id}`)).body.data.posterVerified).toBe(true);
    expect(
      (await anon.get(LIST)).body.data.find((row: { id: string }) => row.id === other.id),
    ).toMatchObject({ posterVerified: true });
  });

  it("errors are not cached or tagged: an unknown job is 404 with no-store", async () => {
    const missing = await anon.get("/api/v1/jobs/job_doesnotexist00");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("etag")).toBeNull();
    expect(missing.headers.get("cache-control")).toBe("no-store");
  });
});

describe.skipIf(!TEST_DATABASE_URL)("the read cache across two servers (PostgreSQL)", () => {
  let market: TestMarket;
  let second: RunningServer;
  let sql: pg.Client;

  beforeAll(async () => {
    // An hour: only a commit can make a server read again, never the entry's age.
    market = await startTestMarket("postgres", { READ_CACHE_SECONDS: "3600" });
    second = await startServer(market.server.env);
    const target = resolveDbTarget({ DATABASE_URL: market.databaseUrl });
    if (target.kind !== "postgres") throw new Error("the market should run on PostgreSQL");
    sql = new pg.Client({ connectionString: target.connectionString });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await second?.stop();
    await market?.stop();
  });

  /** Reads `path` from `client` until `done` holds (a commit notification is asynchronous). */
  async function readUntil(client: ApiClient, path: string, done: (ids: string[]) => boolean) {
    for (;;) {
      const ids = idsOf(await client.get(path));
      if (done(ids)) return ids;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("a write on one server makes the other read again; a row nobody announced stays unseen until then", async () => {
    const posterOnA = await signedInClient(market.server.url);
    const posterOnB = sameSessionOn(posterOnA, second.url);
    const readerOnA = new ApiClient(market.server.url);
    const first = await createJob(posterOnA, { title: "Cached on A" });
    const cached = idsOf(await readerOnA.get(LIST));
    expect(cached[0]).toBe(first.id);

    // A row written behind the servers' backs (no event, no notification): A keeps answering
    // from its cache, which shows the cache is in use.
    await sql.query(
      `INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic",
         "timelineDays", "requirements", "handle", "posterAddress")
       VALUES ('job_unannounced00', 'Unannounced', 'Written by SQL.', 'research', 5000000, 1,
               '{}', '@sql', $1)`,
      [posterOnA.account!.address],
    );
    expect(idsOf(await readerOnA.get(LIST))).toEqual(cached);

    // A job posted through B: A is told by B's NOTIFY and reads again, finding both.
    const posted = await createJob(posterOnB, { title: "Posted on B" });
    const seen = await readUntil(readerOnA, LIST, (ids) => ids.includes(posted.id));
    expect(seen.slice(0, 2).sort()).toEqual([posted.id, "job_unannounced00"].sort());
    // Once told, never older.
    for (let i = 0; i < 5; i++) expect(idsOf(await readerOnA.get(LIST))).toEqual(seen);
    const job = await readerOnA.get(`/api/v1/jobs/${posted.id}`);
    expect(expectStatus(job, 200).data.title).toBe("Posted on B");
  });

  it("a transition on one server reaches the other's cached job", async () => {
    const cast = await makeCast(market);
    const { job, proposal } = await openJobWithProposal(cast);
    const readerOnA = new ApiClient(market.server.url);
    const path = `/api/v1/jobs/${job.id}` as const;
    expect(expectStatus(await readerOnA.get(path), 200).data.status).toBe("open");

    const txHash = await paySettlement(cast, job.id, proposal.id);
    const posterOnB = sameSessionOn(cast.poster, second.url);
    expectStatus(await posterOnB.post(`${path}/accept`, { proposalId: proposal.id, txHash }), 200);
    for (;;) {
      const status = expectStatus(await readerOnA.get(path), 200).data.status;
      if (status === "in_progress") break;
      expect(status).toBe("open");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
});
