// The event feed and the webhook routes over HTTP against the production app server (as
// deployed: NODE_ENV=production): a job's life read back from GET /api/v1/events in order,
// paging and filters, the long-poll, the query's 400s, and the webhook routes' rules, among
// them the SSRF refusals production makes (169.254.169.254, 10.0.0.1, loopback, plain http).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "@/tests/helpers/api";
import {
  BUSY_TEST_SERVER_ENV,
  type Cast,
  createJob,
  deliveredJob,
  expectStatus,
  makeCast,
  signedInClient,
} from "@/tests/helpers/fixtures";
import { startTestMarket, type TestMarket } from "@/tests/helpers/market";

let market: TestMarket;
let cast: Cast;
let anon: ApiClient;

beforeAll(async () => {
  market = await startTestMarket("pglite", BUSY_TEST_SERVER_ENV);
  cast = await makeCast(market);
  anon = new ApiClient(market.server.url);
});
afterAll(() => market?.stop());

interface FeedPage {
  data: { id: string; type: string; createdAt: string; data: Record<string, unknown> }[];
  meta: { nextCursor: string; hasMore: boolean };
}

async function feed(query: string): Promise<FeedPage> {
  return expectStatus<FeedPage>(await anon.get(`/api/v1/events?${query}`), 200, `events ${query}`);
}

/** The feed's head: a filter nothing matches reads up to it. */
const head = async () => (await feed("jobId=job_none")).meta.nextCursor;

describe("the event feed", () => {
  it("tells a job's whole life in order, publicly, with ids and statuses only", async () => {
    const { job, proposal, txHash } = await deliveredJob(cast);
    expectStatus(
      await cast.poster.post(`/api/v1/jobs/${job.id}/complete`, { rating: 5, comment: "good" }),
      200,
      "complete",
    );
    const page = await feed(`jobId=${job.id}`);
    expect(page.data.map((event) => event.type)).toEqual([
      "job.created",
      "proposal.submitted",
      "payment.settled",
      "job.accepted",
      "job.delivered",
      "job.completed",
      "review.created",
    ]);
    expect(page.meta).toEqual({ nextCursor: expect.stringMatching(/^\d+$/), hasMore: false });
    const agentWallet = cast.operator.account!.address;
    expect(page.data[2]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: "payment.settled",
      createdAt: expect.any(String),
      data: {
        jobId: job.id,
        jobStatus: "open",
        category: "research",
        posterAddress: cast.poster.account!.address,
        proposalId: proposal.id,
        proposalStatus: "pending",
        agentId: cast.agent.id,
        agentWalletAddress: agentWallet,
        agentOperatorAddress: agentWallet,
        settlementId: expect.stringMatching(/^stl_/),
        settlementStatus: "succeeded",
        txHash: txHash.toLowerCase(),
      },
    });
    expect(page.data[5]!.data).toMatchObject({
      jobStatus: "completed",
      proposalStatus: "accepted",
    });
    expect(JSON.stringify(page)).not.toMatch(/good|Summarise|budget/);
  });

  it("pages in order with limit and nextCursor, and filters by types and category", async () => {
    const start = await head();
    const design = await createJob(cast.poster, { category: "design" });
    const data = await createJob(cast.poster, { category: "data" });
    const research = await createJob(cast.poster, { category: "research" });

    const first = await feed(`after=${start}&limit=2`);
    expect(first.data.map((event) => event.data.jobId)).toEqual([design.id, data.id]);
    expect(first.meta.hasMore).toBe(true);
    const second = await feed(`after=${first.meta.nextCursor}&limit=2`);
    expect(second.data.map((event) => event.data.jobId)).toEqual([research.id]);
    expect(second.meta.hasMore).toBe(false);
    const caughtUp = await feed(`after=${second.meta.nextCursor}`);
    expect(caughtUp).toEqual({
      data: [],
      meta: { nextCursor: second.meta.nextCursor, hasMore: false },
    });

    const byCategory = await feed(`after=${start}&category=data`);
    expect(byCategory.data.map((event) => event.data.jobId)).toEqual([data.id]);
    const byTypes = await feed(`after=${start}&types=proposal.rejected,job.completed`);
    expect(byTypes).toEqual({
      data: [],
      meta: { nextCursor: second.meta.nextCursor, hasMore: false },
    });
  });

  it("long-polls: answers when a matching event arrives, or empty after `wait` seconds", async () => {
    const started = Date.now();
    // From now on: nothing of the past, the next job.created as soon as it is committed.
    const waiting = anon.get(`/api/v1/events?after=latest&wait=20&types=job.created`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const job = await createJob(cast.poster);
    const answer = expectStatus<FeedPage>(await waiting, 200, "long-poll");
    expect(answer.data.map((event) => event.data.jobId)).toEqual([job.id]);
    expect(Date.now() - started).toBeLessThan(15_000);

    const quiet = Date.now();
    const empty = await feed(`after=${answer.meta.nextCursor}&wait=1&category=legal`);
    expect(empty.data).toEqual([]);
    expect(Date.now() - quiet).toBeGreaterThanOrEqual(950);
  });

  it.each([
    ["after=abc", "after must be an event id (a whole number) from nextCursor, or latest"],
    ["after=-5", "after must be an event id (a whole number) from nextCursor, or latest"],
    ["types=job.created,job.exploded", /each type must be one of: job\.created/],
    ["category=gardening", /category must be one of/],
    ["limit=101", "limit must be from 1 to 100"],
    ["wait=31", "wait must be from 0 to 30 seconds"],
  ])("answers 400 to %s", async (query, message) => {
    const response = await anon.get(`/api/v1/events?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: expect.any(String), code: "invalid_request" });
    if (typeof message === "string") expect(response.body.error).toBe(message);
    else expect(response.body.error).toMatch(message);
  });

  it("answers 405 to writes", async () => {
    const response = await cast.poster.post("/api/v1/events", {});
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
  });
});

describe("webhook routes in production", () => {
  it("need a session (401) and refuse bad input (400)", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/webhooks"],
      ["POST", "/api/v1/webhooks"],
      ["GET", "/api/v1/webhooks/wh_x"],
      ["DELETE", "/api/v1/webhooks/wh_x"],
      ["GET", "/api/v1/webhooks/wh_x/deliveries"],
      ["POST", "/api/v1/webhooks/wh_x/test"],
      ["POST", "/api/v1/webhooks/wh_x/enable"],
    ] as const) {
      const response = await anon.request(method, path, method === "POST" ? { json: {} } : {});
      expect(response.status, `${method} ${path}`).toBe(401);
    }
    for (const [body, message] of [
      [{}, /url/],
      [{ url: "not a url" }, /url must be an absolute https:\/\/ URL/],
      [{ url: "https://93.184.216.34/in", types: ["job.exploded"] }, /each type must be one of/],
      [{ url: "https://93.184.216.34/in", categories: "data" }, /categories must be an array/],
    ] as const) {
      const response = await cast.poster.post("/api/v1/webhooks", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toMatch(message);
    }
  });

  it.each([
    ["https://169.254.169.254/latest/meta-data/", "169.254.169.254, a link-local address"],
    ["https://10.0.0.1/hook", "10.0.0.1, a private address (RFC 1918)"],
    ["https://[::ffff:10.0.0.1]/hook", "10.0.0.1, a private address (RFC 1918)"],
    ["https://127.0.0.1:8443/hook", "127.0.0.1, a loopback address"],
    ["https://100.64.1.2/hook", "100.64.1.2, a carrier-grade NAT address (100.64.0.0/10)"],
    ["https://[fd00::1]/hook", "fd00::1, a unique-local address (fc00::/7)"],
  ])("refuses a webhook to %s (400)", async (url, why) => {
    const response = await cast.poster.post("/api/v1/webhooks", { url });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: `url may not point at ${why}`,
      code: "invalid_webhook_url",
    });
  });

  it("refuses plain http, even to loopback", async () => {
    const response = await cast.poster.post("/api/v1/webhooks", {
      url: "http://127.0.0.1:4000/hook",
    });
    expect(response).toMatchObject({ status: 400, body: { error: "url must be https://" } });
  });

  it("creates a subscription to a public https URL with its secret shown once; only its owner sees it", async () => {
    const created = expectStatus(
      await cast.poster.post("/api/v1/webhooks", {
        url: "https://93.184.216.34/in",
        types: ["job.created"],
        categories: ["data"],
      }),
      200,
      "create webhook",
    ).data;
    expect(created).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: "https://93.184.216.34/in",
      types: ["job.created"],
      categories: ["data"],
      status: "active",
      disabledAt: null,
      disabledReason: null,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = expectStatus(await cast.poster.get("/api/v1/webhooks"), 200).data;
    const { secret: _secret, ...shown } = created;
    expect(listed).toEqual([shown]);
    const stranger = await signedInClient(market.server.url);
    expect(expectStatus(await stranger.get("/api/v1/webhooks"), 200).data).toEqual([]);
    for (const [method, path] of [
      ["GET", `/api/v1/webhooks/${created.id}`],
      ["DELETE", `/api/v1/webhooks/${created.id}`],
      ["GET", `/api/v1/webhooks/${created.id}/deliveries`],
      ["POST", `/api/v1/webhooks/${created.id}/test`],
      ["POST", `/api/v1/webhooks/${created.id}/enable`],
    ] as const) {
      const response = await stranger.request(method, path);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toEqual({
        error: `webhook ${created.id} not found`,
        code: "webhook_not_found",
      });
    }
    const deleted = expectStatus(
      await cast.poster.request("DELETE", `/api/v1/webhooks/${created.id}`),
      200,
    ).data;
    expect(deleted.id).toBe(created.id);
    expect((await cast.poster.get(`/api/v1/webhooks/${created.id}`)).status).toBe(404);
  });
});
