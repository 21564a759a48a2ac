// GET /api/v1/me/jobs, /me/proposals and /me/earnings over HTTP against the production build,
// on each database: who may call (401 without a session, 403 for a token without `read`),
// bad queries (400), someone else's or an unknown agent (403, 404), and the answers a
// poster, an operator and a stranger get for jobs walked through their life with real x402
// payments on the local chain. Every answer is checked against the OpenAPI document.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ApiClient, type ErrorBody } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import {
  BUSY_TEST_SERVER_ENV,
  type Cast,
  deliveredJob,
  expectStatus,
  jobInProgress,
  listAll,
  makeCast,
  openJobWithProposal,
  registerAgent,
  signedInClient,
} from "@/tests/helpers/fixtures";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

const ME = ["/api/v1/me/jobs?group=done", "/api/v1/me/proposals", "/api/v1/me/earnings"] as const;

describe.each(DB_KINDS)("GET /api/v1/me/* on %s", (kind) => {
  let server: RunningServer;
  let cleanup: () => Promise<void>;
  let cast: Cast;
  let stranger: ApiClient;
  const jobs: Record<string, string> = {};
  const txHashes: string[] = [];

  beforeAll(async () => {
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    server = await startServer({ ...database.env, ...BUSY_TEST_SERVER_ENV });
    cast = await makeCast({ chain: { rpcUrl: inject("testChainRpcUrl") }, server });
    stranger = await signedInClient(server.url);

    jobs.waiting = (await openJobWithProposal(cast)).job.id;
    const working = await jobInProgress(cast);
    jobs.working = working.job.id;
    const delivered = await deliveredJob(cast);
    jobs.delivered = delivered.job.id;
    const done = await deliveredJob(cast);
    jobs.done = done.job.id;
    expectStatus(await cast.poster.post(`/api/v1/jobs/${jobs.done}/complete`, {}), 200, "complete");
    txHashes.push(working.txHash, delivered.txHash, done.txHash);
  });

  afterAll(async () => {
    await server?.stop();
    await cleanup?.();
  });

  async function tokenOf(client: ApiClient, scopes: string[]) {
    const body = expectStatus(
      await client.post("/api/v1/tokens", { name: scopes.join("+"), scopes, expiresInDays: 1 }),
      200,
      "create token",
    );
    return body.data.token as string;
  }
  const withToken = <P extends string>(token: string, path: P) =>
    new ApiClient(server.url).request("GET", path, {
      headers: { authorization: `Bearer ${token}` },
    });

  describe("who may call", () => {
    it.each(ME)("%s without a session → 401", async (path) => {
      const response = await new ApiClient(server.url).get(path);
      expect(response.status).toBe(401);
    });

    it.each(ME)("%s with a forged or logged-out cookie → 401", async (path) => {
      const client = new ApiClient(server.url);
      client.cookie = "marketplace_session=Fe26.2**not-a-real-seal";
      expect((await client.get(path)).status).toBe(401);
    });

    it.each(ME)("%s with a token lacking `read` → 403, with `read` → 200", async (path) => {
      const without = await tokenOf(cast.poster, ["post", "bid", "deliver", "review"]);
      const refused = await withToken(without, path);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatch(/read/);
      const allowed = await withToken(await tokenOf(cast.poster, ["read"]), path);
      expect(allowed.status).toBe(200);
    });

    it.each(ME)("%s answers 405 to a write", async (path) => {
      const response = await cast.poster.post(path.split("?")[0]!, {});
      expect(response.status).toBe(405);
    });
  });

  describe("bad queries → 400 with the field named", () => {
    it.each([
      ["/api/v1/me/jobs?group=everything", /group must be one of/],
      ["/api/v1/me/jobs?group=done&limit=0", /limit must be from 1 to 100/],
      ["/api/v1/me/jobs?group=done&limit=101", /limit must be from 1 to 100/],
      ["/api/v1/me/jobs?group=done&limit=ten", /limit must be a number/],
      ["/api/v1/me/jobs?group=done&cursor=bm90LWEtY3Vyc29y", /cursor is not valid/],
      [`/api/v1/me/jobs?group=done&cursor=${"a".repeat(201)}`, /cursor is not valid/],
      ["/api/v1/me/proposals?status=won", /status must be one of/],
      [`/api/v1/me/proposals?agentId=${"x".repeat(65)}`, /agentId is not a valid identifier/],
      ["/api/v1/me/earnings?limit=-1", /limit must be from 1 to 100/],
      ["/api/v1/me/earnings?cursor=%00", /cursor is not valid/],
    ])("%s", async (path, message) => {
      const response = await cast.poster.get(path);
      expect(response.status).toBe(400);
      expect((response.body as ErrorBody).error).toMatch(message);
    });
  });

  describe("agents that are not mine", () => {
    it("names another operator's agent → 403, an unknown agent → 404", async () => {
      const theirs = await registerAgent(stranger, "Theirs");
      const forbidden = await cast.operator.get(`/api/v1/me/proposals?agentId=${theirs.id}`);
      expect(forbidden.status).toBe(403);
      const unknown = await cast.operator.get("/api/v1/me/proposals?agentId=agent_nobody");
      expect(unknown.status).toBe(404);
      // The owner sees their own (none yet).
      expect((await stranger.get(`/api/v1/me/proposals?agentId=${theirs.id}`)).body.data).toEqual(
        [],
      );
    });
  });

  describe("what each wallet sees", () => {
    const ids = async (client: ApiClient, group: string) =>
      (await listAll(client, `/api/v1/me/jobs?group=${group}`)).map((item) => item.job.id);

    it.each([
      ["proposals_waiting", "waiting"],
      ["in_progress", "working"],
      ["to_confirm", "delivered"],
      ["done", "done"],
    ])("the poster's %s group holds exactly the %s job", async (group, job) => {
      expect(await ids(cast.poster, group)).toEqual([jobs[job]]);
    });

    it("the poster's waiting job counts its pending proposal", async () => {
      const body = expectStatus(
        await cast.poster.get("/api/v1/me/jobs?group=proposals_waiting"),
        200,
      );
      expect(body.data[0]!.pendingProposals).toBe(1);
      expect(body.meta).toEqual({ nextCursor: null });
    });

    it.each([
      ["to_deliver", "working"],
      ["awaiting_confirmation", "delivered"],
      ["delivered_done", "done"],
    ])("the operator's %s group holds exactly the %s job", async (group, job) => {
      expect(await ids(cast.operator, group)).toEqual([jobs[job]]);
    });

    it("the operator is no poster and the poster no operator: their other groups are empty", async () => {
      for (const group of ["proposals_waiting", "in_progress", "to_confirm", "done"]) {
        expect(await ids(cast.operator, group)).toEqual([]);
      }
      for (const group of ["to_deliver", "awaiting_confirmation", "delivered_done"]) {
        expect(await ids(cast.poster, group)).toEqual([]);
      }
    });

    it("without a group: all of a wallet's jobs, each with the group it is in (the plainest call)", async () => {
      const all = async (client: ApiClient) =>
        Object.fromEntries(
          (await listAll(client, "/api/v1/me/jobs")).map((item) => [item.job.id, item.group]),
        );
      expect(await all(cast.poster)).toEqual({
        [jobs.waiting!]: "proposals_waiting",
        [jobs.working!]: "in_progress",
        [jobs.delivered!]: "to_confirm",
        [jobs.done!]: "done",
      });
      expect(await all(cast.operator)).toEqual({
        [jobs.working!]: "to_deliver",
        [jobs.delivered!]: "awaiting_confirmation",
        [jobs.done!]: "delivered_done",
      });
      expect(await all(stranger)).toEqual({});
    });

    it("a stranger sees no job, no bid and no money of theirs", async () => {
      for (const group of ["proposals_waiting", "done", "to_deliver", "delivered_done"]) {
        expect(await ids(stranger, group)).toEqual([]);
      }
      expect((await stranger.get("/api/v1/me/proposals")).body.data).toEqual([]);
      const money = expectStatus(await stranger.get("/api/v1/me/earnings"), 200).data;
      expect(money.earned.totalUsdc).toBe(0);
      expect(money.spent.totalUsdc).toBe(0);
      expect(money.transactions).toEqual([]);
    });

    it("the operator's bids: one pending, three accepted, each with its job", async () => {
      const all = await listAll(cast.operator, "/api/v1/me/proposals");
      const byStatus = (status: string) =>
        all.filter((item) => item.proposal.status === status).map((item) => item.job.id);
      expect(byStatus("pending")).toEqual([jobs.waiting]);
      expect(byStatus("accepted").sort()).toEqual([jobs.working, jobs.delivered, jobs.done].sort());
      const accepted = await listAll(cast.operator, "/api/v1/me/proposals?status=accepted");
      expect(accepted).toHaveLength(3);
      expect((await cast.poster.get("/api/v1/me/proposals")).body.data).toEqual([]);
    });
  });

  describe("earnings and spend from real settlements", () => {
    const month = () => new Date().toISOString().slice(0, 7);

    it("the operator earned the three paid bids, per agent and per month, with each hash", async () => {
      const body = expectStatus(await cast.operator.get("/api/v1/me/earnings"), 200);
      expect(body.data.earned).toEqual({
        totalUsdc: 60,
        payments: 3,
        byAgent: [{ agentId: cast.agent.id, agentName: "Lens", totalUsdc: 60, payments: 3 }],
        byMonth: [{ month: month(), totalUsdc: 60, payments: 3 }],
      });
      expect(body.data.spent).toEqual({ totalUsdc: 0, payments: 0, byMonth: [] });
      expect(body.data.transactions.map((tx: { txHash: string }) => tx.txHash).sort()).toEqual(
        [...txHashes].map((hash) => hash.toLowerCase()).sort(),
      );
    });

    it("the poster spent the same, and the open job's unpaid bid counts nowhere", async () => {
      const body = expectStatus(await cast.poster.get("/api/v1/me/earnings"), 200);
      expect(body.data.spent).toEqual({
        totalUsdc: 60,
        payments: 3,
        byMonth: [{ month: month(), totalUsdc: 60, payments: 3 }],
      });
      expect(body.data.earned.totalUsdc).toBe(0);
      expect(
        body.data.transactions.every(
          (tx: { direction: string; jobId: string }) =>
            tx.direction === "spent" && tx.jobId !== jobs.waiting,
        ),
      ).toBe(true);
    });

    it("pages the transactions one at a time, newest first, without repeats", async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
        const body = expectStatus(
          await cast.operator.get(`/api/v1/me/earnings?limit=1${query}`),
          200,
        );
        expect(body.data.transactions.length).toBeLessThanOrEqual(1);
        // The summary is over every payment on every page.
        expect(body.data.earned.totalUsdc).toBe(60);
        seen.push(...body.data.transactions.map((tx: { txHash: string }) => tx.txHash));
        cursor = body.meta.nextCursor;
      } while (cursor);
      expect(seen).toEqual([...txHashes].reverse().map((hash) => hash.toLowerCase()));
    });
  });
});
