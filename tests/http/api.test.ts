// The HTTP contract, row by row, against the production app server and a real database (PGlite, and
// PostgreSQL when TEST_DATABASE_URL is set), with real SIWE signatures from viem accounts.
import { spawn } from "node:child_process";
import path from "node:path";
import { sealData } from "iron-session";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appServerArgs } from "@/tools/run";
import { ApiClient } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import { editLedger } from "@/tests/helpers/ledger";
import { payFor, startTestMarket, type TestMarket } from "@/tests/helpers/market";
import {
  prepareServerDatabase,
  type RunningServer,
  startServer,
  TEST_SESSION_SECRET,
} from "@/tests/helpers/server";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

const newClient = (server: RunningServer) =>
  new ApiClient(server.url, privateKeyToAccount(generatePrivateKey()));
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

const validJob = {
  title: "Summarise 20 papers",
  description: "Read and summarise the attached papers.",
  category: "research",
  budgetUsdc: 25.5,
  timelineDays: 3,
};

describe.each(DB_KINDS)("marketplace API over HTTP on %s", (kind) => {
  let market: TestMarket;
  let server: RunningServer;
  let poster: ApiClient;
  let operator: ApiClient;
  let otherOperator: ApiClient;
  let stranger: ApiClient;
  let anon: ApiClient;
  let agentId: string;
  let otherAgentId: string;

  beforeAll(async () => {
    market = await startTestMarket(kind, {
      RATE_LIMIT_WRITES_PER_MINUTE: "100000",
      RATE_LIMIT_AUTH_PER_MINUTE: "100000",
    });
    server = market.server;
    const clients = await Promise.all([0, 1, 2, 3].map(() => newClient(server).signIn()));
    [poster, operator, otherOperator, stranger] = clients as [
      ApiClient,
      ApiClient,
      ApiClient,
      ApiClient,
    ];
    anon = new ApiClient(server.url);
    const agent = await operator.post("/api/v1/agents", {
      name: "Lens",
      categories: ["research", "data"],
    });
    agentId = agent.body.data.id;
    const other = await otherOperator.post("/api/v1/agents", {
      name: "Quill",
      categories: ["writing"],
    });
    otherAgentId = other.body.data.id;
  });

  afterAll(async () => {
    await market?.stop();
  });

  async function openJobWithBids() {
    const job = (await poster.post("/api/v1/jobs", validJob)).body.data;
    const bid = (
      await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId,
        bidUsdc: 20,
        etaDays: 2,
        message: "I can do it",
      })
    ).body.data;
    const otherBid = (
      await otherOperator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId: otherAgentId,
        bidUsdc: 22,
        etaDays: 3,
        message: "Me too",
      })
    ).body.data;
    return { job, bid, otherBid };
  }

  async function paidJob() {
    const { job, bid, otherBid } = await openJobWithBids();
    const txHash = await payFor(market, poster, job.id, bid.id);
    const accepted = await poster.post(`/api/v1/jobs/${job.id}/accept`, {
      proposalId: bid.id,
      txHash,
    });
    expect(accepted.status).toBe(200);
    return { job: accepted.body.data, bid, otherBid, txHash };
  }

  describe("sign-in (SIWE)", () => {
    it("issues single-use random nonces", async () => {
      const a = await anon.get("/api/auth/nonce");
      const b = await anon.get("/api/auth/nonce");
      expect(a.status).toBe(200);
      expect(a.body.data.nonce).toMatch(/^[0-9a-f]{32}$/);
      expect(a.body.data.nonce).not.toBe(b.body.data.nonce);
    });

    it("verifies a signed message and sets the session cookie", async () => {
      const client = newClient(server);
      const response = await client.post("/api/auth/verify", await client.siweMessage());
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: { address: client.account!.address } });
      const cookie = response.headers.get("set-cookie")!;
      expect(cookie).toMatch(/^marketplace_session=[^;]+;/);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).toMatch(/Secure/i);
      const maxAge = Number(/Max-Age=(\d+)/i.exec(cookie)?.[1]);
      expect(maxAge).toBeGreaterThan(7 * 24 * 3600 - 120);
      expect(maxAge).toBeLessThanOrEqual(7 * 24 * 3600);
      expect((await client.get("/api/auth/session")).body).toEqual({
        data: { address: client.account!.address },
      });
    });

    it("refuses a message whose address is not EIP-55 checksummed, as EIP-4361 requires (400)", async () => {
      const client = newClient(server);
      const { message } = await client.siweMessage();
      const lowered = message.replace(
        client.account!.address,
        client.account!.address.toLowerCase(),
      );
      expect(lowered).not.toBe(message);
      const signature = await client.account!.signMessage({ message: lowered });
      const response = await client.post("/api/auth/verify", { message: lowered, signature });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe(
        "message is not a valid EIP-4361 (SIWE) message: line 2: invalid EIP-55 address - " +
          client.account!.address.toLowerCase(),
      );
      expect(response.headers.get("set-cookie")).toBeNull();
    });

    it("returns checksummed addresses for addresses sent in lowercase", async () => {
      const payeeClient = await newClient(server).signIn();
      const payee = payeeClient.account!.address;
      const agent = await stranger.post("/api/v1/agents", {
        name: "Lower",
        categories: ["seo"],
        walletAddress: payee.toLowerCase(),
      });
      // The named wallet is the payee once it agrees.
      expect(agent.body.data).toMatchObject({
        walletAddress: null,
        payeeConsentPending: true,
        operatorAddress: stranger.account!.address,
      });
      expect(await payeeClient.consentAsPayee(agent.body.data.id)).toMatchObject({
        walletAddress: payee,
        payeeConsentPending: false,
      });
      expect((await anon.get(`/api/v1/agents/${agent.body.data.id}`)).body.data.walletAddress).toBe(
        payee,
      );
      const faucet = await anon.post("/api/dev/faucet", {
        address: payee.toLowerCase(),
        amountUsdc: 1,
      });
      expect(faucet.status).toBe(200);
    });

    it.each([
      ["a nonce used twice", "reuse"],
      ["an unknown nonce", "unknown"],
      ["another domain", "domain"],
      ["an expired message", "expired"],
      ["a message not valid yet", "notBefore"],
      ["a signature by another wallet", "signer"],
    ])("refuses %s with 401", async (_label, kind) => {
      const client = newClient(server);
      let signed: { message: string; signature: string };
      if (kind === "unknown") signed = await client.siweMessage({ nonce: "a".repeat(32) });
      else if (kind === "domain") signed = await client.siweMessage({ domain: "evil.example" });
      else if (kind === "expired")
        signed = await client.siweMessage({ expirationTime: new Date(Date.now() - 60_000) });
      else if (kind === "notBefore")
        signed = await client.siweMessage({ notBefore: new Date(Date.now() + 3_600_000) });
      else signed = await client.siweMessage();
      if (kind === "signer") {
        signed.signature = await privateKeyToAccount(generatePrivateKey()).signMessage({
          message: signed.message,
        });
      }
      if (kind === "reuse")
        expect((await client.post("/api/auth/verify", signed)).status).toBe(200);
      const response = await newClient(server).post("/api/auth/verify", signed);
      expect(response.status).toBe(401);
      expect(typeof response.body.error).toBe("string");
      expect(response.headers.get("set-cookie")).toBeNull();
    });

    it.each([
      ["no body", undefined],
      ["a missing signature", { message: "hello" }],
      ["a non-hex signature", { message: "hello", signature: "zz" }],
      ["a message that is not EIP-4361", { message: "hello", signature: "0x1234" }],
    ])("answers 400 for %s", async (_label, body) => {
      const response = await anon.post("/api/auth/verify", body);
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe("string");
    });

    it("answers 401 for no, tampered, foreign and unknown session cookies", async () => {
      expect((await anon.get("/api/auth/session")).status).toBe(401);
      const tampered = new ApiClient(server.url);
      tampered.cookie = `${poster.cookie!.slice(0, -4)}AAAA`;
      expect((await tampered.get("/api/auth/session")).status).toBe(401);
      // The cookie carries only a sealed session id: sealed with another secret, or naming
      // a session the server never issued, or in the old address-carrying shape, it is none.
      const sealed = async (data: object, password = TEST_SESSION_SECRET) => {
        const client = new ApiClient(server.url);
        client.cookie = `marketplace_session=${await sealData(data, { password })}`;
        return client;
      };
      const foreign = await sealed({ sid: "x".repeat(43) }, "x".repeat(40));
      expect((await foreign.get("/api/auth/session")).status).toBe(401);
      const unknown = await sealed({ sid: "x".repeat(43) });
      expect((await unknown.get("/api/auth/session")).status).toBe(401);
      expect((await unknown.post("/api/v1/jobs", validJob)).status).toBe(401);
      const oldShape = await sealed({
        address: poster.account!.address,
        expiresAt: Date.now() + 60_000,
      });
      expect((await oldShape.get("/api/auth/session")).status).toBe(401);
      expect((await oldShape.post("/api/v1/jobs", validJob)).status).toBe(401);
      // The real cookie is accepted: the 401s above are the seal and the session row.
      expect((await poster.get("/api/auth/session")).status).toBe(200);
    });

    it("logs out and clears the cookie", async () => {
      const client = await newClient(server).signIn();
      const response = await client.post("/api/auth/logout");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: { ok: true } });
      expect(response.headers.get("set-cookie")).toMatch(/marketplace_session=;/);
      expect((await client.get("/api/auth/session")).status).toBe(401);
      expect((await anon.post("/api/auth/logout")).status).toBe(200);
    });
  });

  describe("jobs", () => {
    it("creates a job (201) with every contract field", async () => {
      const response = await poster.post("/api/v1/jobs", {
        ...validJob,
        requirements: [" cite sources "],
        extra: "ignored",
      });
      expect(response.status).toBe(201);
      const job = response.body.data;
      expect(job).toEqual({
        id: expect.any(String),
        title: validJob.title,
        description: validJob.description,
        category: "research",
        budgetUsdc: 25.5,
        timelineDays: 3,
        requirements: ["cite sources"],
        handle: `@${poster.account!.address.slice(2, 8)}`,
        status: "open",
        posterAddress: poster.account!.address,
        posterVerified: false,
        assignedAgentId: null,
        acceptedProposalId: null,
        paymentTxHash: null,
        attachments: [],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        deliveredAt: null,
        completedAt: null,
      });
      expect((await anon.get(`/api/v1/jobs/${job.id}`)).body).toEqual({ data: job });
    });

    it("keeps a custom handle and defaults requirements to []", async () => {
      const job = (await poster.post("/api/v1/jobs", { ...validJob, handle: "  @acme  " })).body
        .data;
      expect(job.handle).toBe("@acme");
      expect(job.requirements).toEqual([]);
    });

    it("needs a session (401)", async () => {
      expect((await anon.post("/api/v1/jobs", validJob)).status).toBe(401);
    });

    it.each([
      ["missing title", { ...validJob, title: undefined }],
      ["empty title", { ...validJob, title: "   " }],
      ["title over 200 chars", { ...validJob, title: "x".repeat(201) }],
      ["missing description", { ...validJob, description: undefined }],
      ["description over 20,000 chars", { ...validJob, description: "x".repeat(20_001) }],
      ["unknown category", { ...validJob, category: "cooking" }],
      ["budget as a string", { ...validJob, budgetUsdc: "10" }],
      ["zero budget", { ...validJob, budgetUsdc: 0 }],
      ["negative budget", { ...validJob, budgetUsdc: -1 }],
      ["budget with 7 decimals", { ...validJob, budgetUsdc: 1.0000001 }],
      ["budget over 1e9", { ...validJob, budgetUsdc: 1_000_000_001 }],
      ["fractional timeline", { ...validJob, timelineDays: 1.5 }],
      ["zero timeline", { ...validJob, timelineDays: 0 }],
      ["timeline over 3650", { ...validJob, timelineDays: 3651 }],
      ["requirements not an array", { ...validJob, requirements: "one" }],
      ["51 requirements", { ...validJob, requirements: Array(51).fill("r") }],
      ["an empty requirement", { ...validJob, requirements: [""] }],
      ["a requirement over 500 chars", { ...validJob, requirements: ["x".repeat(501)] }],
      ["handle over 32 chars", { ...validJob, handle: "x".repeat(33) }],
      ["a JSON array body", [validJob]],
      ["a JSON string body", "job"],
    ])("answers 400 for %s", async (_label, body) => {
      const response = await poster.post("/api/v1/jobs", body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: expect.any(String), code: "invalid_request" });
    });

    it("answers 400 for invalid JSON and 413 for bodies over 1 MiB", async () => {
      const bad = await poster.request("POST", "/api/v1/jobs", {
        body: "{not json",
        headers: { "content-type": "application/json" },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/JSON/);
      const big = await poster.post("/api/v1/jobs", {
        ...validJob,
        description: "x".repeat(1024 * 1024),
      });
      expect(big.status).toBe(413);
      expect(big.body).toEqual({ error: expect.any(String), code: "payload_too_large" });
    });

    it("lists newest first with filters and cursor pages", async () => {
      const client = await newClient(server).signIn();
      const created = [];
      for (const category of ["legal", "legal", "legal", "seo"]) {
        created.push((await client.post("/api/v1/jobs", { ...validJob, category })).body.data);
      }
      const first = await anon.get("/api/v1/jobs?category=legal&status=open&limit=2");
      expect(first.status).toBe(200);
      expect(first.body.data.map((job: { id: string }) => job.id)).toEqual([
        created[2].id,
        created[1].id,
      ]);
      expect(first.body.meta.nextCursor).toEqual(expect.any(String));
      const second = await anon.get(
        `/api/v1/jobs?category=legal&limit=2&cursor=${first.body.meta.nextCursor}`,
      );
      expect(second.body.data.map((job: { id: string }) => job.id)).toEqual([created[0].id]);
      expect(second.body.meta.nextCursor).toBeNull();
      const all = await anon.get("/api/v1/jobs");
      expect(all.body.data.length).toBeLessThanOrEqual(50);
      const times = all.body.data.map((job: { createdAt: string }) => job.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
      expect((await anon.get("/api/v1/jobs?status=completed&category=seo")).body.data).toEqual([]);
    });

    it.each([
      "status=closed",
      "category=cooking",
      "limit=0",
      "limit=101",
      "limit=abc",
      "cursor=%%%",
    ])("answers 400 for ?%s", async (query) => {
      const response = await anon.get(`/api/v1/jobs?${query}`);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: expect.any(String),
        code: query.startsWith("cursor=") ? "invalid_cursor" : "invalid_request",
      });
    });

    it("answers 404 for an unknown job", async () => {
      const response = await anon.get("/api/v1/jobs/job_doesnotexist");
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: expect.any(String), code: "job_not_found" });
      expect((await anon.get(`/api/v1/jobs/${"x".repeat(300)}`)).status).toBe(404);
    });
  });

  describe("agents", () => {
    it("registers an agent (201) for the caller, with computed rating and counts", async () => {
      const payee = privateKeyToAccount(generatePrivateKey()).address;
      const response = await stranger.post("/api/v1/agents", {
        name: "Forge",
        description: "Builds things",
        categories: ["engineering"],
        walletAddress: payee.toLowerCase(),
      });
      expect(response.status).toBe(201);
      expect(response.body.data).toEqual({
        id: expect.any(String),
        name: "Forge",
        description: "Builds things",
        rating: 0,
        reviewCount: 0,
        walletAddress: null,
        payeeConsentPending: true,
        operatorAddress: stranger.account!.address,
        categories: ["engineering"],
        completedJobs: 0,
        paidByPosters: 0,
        totalPaidUsdc: 0,
        createdAt: expect.any(String),
      });
      const fetched = await anon.get(`/api/v1/agents/${response.body.data.id}`);
      expect(fetched.body.data).toEqual(response.body.data);
    });

    it("defaults the payee wallet to the caller", async () => {
      const agent = (await anon.get(`/api/v1/agents/${agentId}`)).body.data;
      expect(agent.walletAddress).toBe(operator.account!.address);
      expect(agent.operatorAddress).toBe(operator.account!.address);
    });

    it.each([
      ["no categories", { name: "A", categories: [] }],
      ["an unknown category", { name: "A", categories: ["cooking"] }],
      ["a repeated category", { name: "A", categories: ["seo", "seo"] }],
      ["a bad wallet", { name: "A", categories: ["seo"], walletAddress: "0x123" }],
      ["no name", { categories: ["seo"] }],
    ])("answers 400 for %s", async (_label, body) => {
      expect((await stranger.post("/api/v1/agents", body)).status).toBe(400);
    });

    it("needs a session and answers 404 for unknown agents", async () => {
      expect((await anon.post("/api/v1/agents", { name: "A", categories: ["seo"] })).status).toBe(
        401,
      );
      expect((await anon.get("/api/v1/agents/agent_nope")).status).toBe(404);
    });

    it("lists agents with a category filter", async () => {
      const response = await anon.get("/api/v1/agents?category=writing");
      expect(response.status).toBe(200);
      expect(response.body.data.map((agent: { id: string }) => agent.id)).toContain(otherAgentId);
      expect(
        response.body.data.every((agent: { categories: string[] }) =>
          agent.categories.includes("writing"),
        ),
      ).toBe(true);
      expect((await anon.get("/api/v1/agents?category=nope")).status).toBe(400);
    });
  });

  describe("proposals", () => {
    it("submits a bid (201) and lists active bids oldest first", async () => {
      const { job, bid, otherBid } = await openJobWithBids();
      expect(bid).toEqual({
        id: expect.any(String),
        jobId: job.id,
        agentId,
        bidUsdc: 20,
        etaDays: 2,
        message: "I can do it",
        // The agent's wallet (its operator's by default) when the bid was made: who gets paid.
        payeeAddress: operator.account!.address,
        status: "pending",
        createdAt: expect.any(String),
      });
      const list = await anon.get(`/api/v1/jobs/${job.id}/proposals`);
      expect(list.status).toBe(200);
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([bid.id, otherBid.id]);
      expect(list.body.meta).toEqual({ nextCursor: null });
    });

    it.each([
      ["a bid of 0", { bidUsdc: 0 }],
      ["a bid as a string", { bidUsdc: "5" }],
      ["an ETA of 0", { etaDays: 0 }],
      ["a fractional ETA", { etaDays: 0.5 }],
      ["an empty message", { message: "  " }],
      ["a message over 5,000 chars", { message: "x".repeat(5001) }],
    ])("answers 400 for %s", async (_label, change) => {
      const job = (await poster.post("/api/v1/jobs", validJob)).body.data;
      const response = await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId,
        bidUsdc: 5,
        etaDays: 1,
        message: "hi",
        ...change,
      });
      expect(response.status).toBe(400);
    });

    it("applies the role rules (401, 403) and lookups (404)", async () => {
      const job = (await poster.post("/api/v1/jobs", validJob)).body.data;
      const bid = { agentId, bidUsdc: 5, etaDays: 1, message: "hi" };
      expect((await anon.post(`/api/v1/jobs/${job.id}/proposals`, bid)).status).toBe(401);
      expect((await stranger.post(`/api/v1/jobs/${job.id}/proposals`, bid)).status).toBe(403);
      const ownAgent = (
        await poster.post("/api/v1/agents", { name: "Self", categories: ["research"] })
      ).body.data;
      const own = await poster.post(`/api/v1/jobs/${job.id}/proposals`, {
        ...bid,
        agentId: ownAgent.id,
      });
      // The poster's own agent pays the poster: refused as a self-payment.
      expect(own.status).toBe(403);
      expect(own.body).toMatchObject({
        code: "self_payment",
        error: expect.stringMatching(/itself/),
      });
      expect((await operator.post(`/api/v1/jobs/job_nope/proposals`, bid)).status).toBe(404);
      expect(
        (await operator.post(`/api/v1/jobs/${job.id}/proposals`, { ...bid, agentId: "agent_nope" }))
          .status,
      ).toBe(404);
      expect((await anon.get(`/api/v1/jobs/job_nope/proposals`)).status).toBe(404);
    });

    it("refuses a second active bid by the same agent (409), allows one after a rejection", async () => {
      const { job, bid } = await openJobWithBids();
      const again = await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId,
        bidUsdc: 19,
        etaDays: 2,
        message: "cheaper",
      });
      expect(again.status).toBe(409);
      expect((await poster.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status).toBe(
        200,
      );
      const rebid = await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId,
        bidUsdc: 19,
        etaDays: 2,
        message: "cheaper",
      });
      expect(rebid.status).toBe(201);
    });

    it("rejects (200 → the proposal) and hides rejected bids unless asked", async () => {
      const { job, bid, otherBid } = await openJobWithBids();
      expect(
        (await stranger.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status,
      ).toBe(403);
      expect(
        (await operator.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status,
      ).toBe(403);
      expect((await anon.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status).toBe(
        401,
      );
      expect((await poster.post(`/api/v1/jobs/${job.id}/proposals/prop_nope/reject`)).status).toBe(
        404,
      );
      const response = await poster.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`);
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ id: bid.id, status: "rejected" });
      expect((await poster.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status).toBe(
        409,
      );
      const active = (await anon.get(`/api/v1/jobs/${job.id}/proposals`)).body.data;
      expect(active.map((p: { id: string }) => p.id)).toEqual([otherBid.id]);
      const rejected = (await anon.get(`/api/v1/jobs/${job.id}/proposals?status=rejected`)).body
        .data;
      expect(rejected.map((p: { id: string }) => p.id)).toEqual([bid.id]);
      expect(
        (await anon.get(`/api/v1/jobs/${job.id}/proposals?status=all`)).body.data,
      ).toHaveLength(2);
      expect((await anon.get(`/api/v1/jobs/${job.id}/proposals?status=maybe`)).status).toBe(400);
      // The job itself does not change.
      expect((await anon.get(`/api/v1/jobs/${job.id}`)).body.data.status).toBe("open");
    });

    it("answers 404 for a proposal of another job", async () => {
      const a = await openJobWithBids();
      const b = await openJobWithBids();
      expect(
        (await poster.post(`/api/v1/jobs/${a.job.id}/proposals/${b.bid.id}/reject`)).status,
      ).toBe(404);
      const txHash = await payFor(market, poster, b.job.id, b.bid.id);
      expect(
        (await poster.post(`/api/v1/jobs/${a.job.id}/accept`, { proposalId: b.bid.id, txHash }))
          .status,
      ).toBe(404);
    });
  });

  describe("accept (pay first)", () => {
    it("answers 402 without a matching settlement, 400 for a malformed hash", async () => {
      const { job, bid, otherBid } = await openJobWithBids();
      const noPayment = await poster.post(`/api/v1/jobs/${job.id}/accept`, {
        proposalId: bid.id,
        txHash: hash(999_999),
      });
      expect(noPayment.status).toBe(402);
      expect(noPayment.body).toEqual({
        error:
          "txHash is not a successful settlement of this job and proposal; " +
          "pay through POST /api/jobs/:id/settle?proposalId=... first",
        code: "payment_not_found",
      });
      expect(
        (await poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: bid.id, txHash: "0x12" }))
          .status,
      ).toBe(400);
      expect(
        (await poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: bid.id })).status,
      ).toBe(400);
      // A settlement for the other proposal does not pay for this one.
      const txHash = await payFor(market, poster, job.id, otherBid.id);
      const other = await poster.post(`/api/v1/jobs/${job.id}/accept`, {
        proposalId: bid.id,
        txHash,
      });
      expect(other.status).toBe(402);
      expect(other.body.error).toMatch(/not a successful settlement of this job and proposal/);
    });

    it("answers 402 for another job's settlement hash", async () => {
      const a = await openJobWithBids();
      const b = await openJobWithBids();
      const txHash = await payFor(market, poster, b.job.id, b.bid.id);
      const response = await poster.post(`/api/v1/jobs/${a.job.id}/accept`, {
        proposalId: a.bid.id,
        txHash,
      });
      expect(response.status).toBe(402);
      expect(response.body.error).toMatch(/not a successful settlement of this job and proposal/);
    });

    // The ledger can only disagree with the bid if someone edits it: PostgreSQL lets the test
    // do that beside the running server (PGlite belongs to the server process).
    (kind === "postgres" ? it : () => {})(
      "answers 402 when the ledger row or the chain's receipt disagrees with the bid",
      async () => {
        const cases: [Record<string, string | bigint>, RegExp][] = [
          [{ payer: stranger.account!.address }, /not paid by the poster/],
          [{ payTo: stranger.account!.address }, /not paid to the wallet the bid was made with/],
          [{ amountAtomic: 1n }, /its amount is not the bid/],
          [{ network: "eip155:8453" }, /made on eip155:8453/],
          [{ asset: "0x0000000000000000000000000000000000000001" }, /not USDC/],
        ];
        for (const [edit, refusal] of cases) {
          const { job, bid } = await openJobWithBids();
          const txHash = await payFor(market, poster, job.id, bid.id);
          await editLedger(market.databaseUrl!, { jobId: job.id }, edit);
          const response = await poster.post(`/api/v1/jobs/${job.id}/accept`, {
            proposalId: bid.id,
            txHash,
          });
          expect(response.status, Object.keys(edit).join()).toBe(402);
          expect(response.body.error).toMatch(refusal);
        }
        // The row names a real transaction of the poster's, but one that paid another agent
        // another amount: the chain's receipt disagrees with the ledger.
        const first = await openJobWithBids();
        const firstHash = await payFor(market, poster, first.job.id, first.otherBid.id);
        const { job, bid } = await openJobWithBids();
        await payFor(market, poster, job.id, bid.id);
        await editLedger(
          market.databaseUrl!,
          { jobId: first.job.id },
          { txHash: `0x${"0".repeat(63)}1` },
        );
        await editLedger(market.databaseUrl!, { jobId: job.id }, { txHash: firstHash });
        const response = await poster.post(`/api/v1/jobs/${job.id}/accept`, {
          proposalId: bid.id,
          txHash: firstHash,
        });
        expect(response.status).toBe(402);
        expect(response.body.error).toMatch(/the chain's receipt does not show this payment/);
      },
    );

    it("applies role rules and lookups (401, 403, 404)", async () => {
      const { job, bid } = await openJobWithBids();
      const body = { proposalId: bid.id, txHash: hash(1) };
      expect((await anon.post(`/api/v1/jobs/${job.id}/accept`, body)).status).toBe(401);
      expect((await operator.post(`/api/v1/jobs/${job.id}/accept`, body)).status).toBe(403);
      expect((await poster.post(`/api/v1/jobs/job_nope/accept`, body)).status).toBe(404);
      expect(
        (await poster.post(`/api/v1/jobs/${job.id}/accept`, { ...body, proposalId: "prop_nope" }))
          .status,
      ).toBe(404);
    });

    it("accepts a paid proposal (200 → the job in progress), rejects the rest, and is idempotent", async () => {
      const { job, bid, otherBid } = await openJobWithBids();
      const txHash = await payFor(market, poster, job.id, bid.id);
      const response = await poster.post(`/api/v1/jobs/${job.id}/accept`, {
        proposalId: bid.id,
        txHash,
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        id: job.id,
        status: "in_progress",
        assignedAgentId: agentId,
        acceptedProposalId: bid.id,
        paymentTxHash: txHash,
      });
      const proposals = (await anon.get(`/api/v1/jobs/${job.id}/proposals?status=all`)).body.data;
      expect(
        Object.fromEntries(proposals.map((p: { id: string; status: string }) => [p.id, p.status])),
      ).toEqual({
        [bid.id]: "accepted",
        [otherBid.id]: "rejected",
      });
      const retry = await poster.post(`/api/v1/jobs/${job.id}/accept`, {
        proposalId: bid.id,
        txHash,
      });
      expect(retry.status).toBe(200);
      expect(retry.body.data).toEqual(response.body.data);
      expect(
        (await poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: otherBid.id, txHash }))
          .status,
      ).toBe(409);
      expect(
        (await poster.post(`/api/v1/jobs/${job.id}/proposals/${otherBid.id}/reject`)).status,
      ).toBe(409);
      const late = await otherOperator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId: otherAgentId,
        bidUsdc: 1,
        etaDays: 1,
        message: "late",
      });
      expect(late.status).toBe(409);
    });
  });

  describe("reviews", () => {
    it("posts a review on a paid job in progress (201), once per wallet (409)", async () => {
      const { job } = await paidJob();
      const body = { agentId, jobId: job.id, rating: 4, comment: "Going well" };
      expect((await anon.post("/api/v1/reviews", body)).status).toBe(401);
      expect((await operator.post("/api/v1/reviews", body)).status).toBe(403);
      expect(
        (await poster.post("/api/v1/reviews", { ...body, agentId: otherAgentId })).status,
      ).toBe(400);
      expect((await poster.post("/api/v1/reviews", { ...body, jobId: "job_nope" })).status).toBe(
        404,
      );
      expect((await poster.post("/api/v1/reviews", { ...body, rating: 6 })).status).toBe(400);
      expect((await poster.post("/api/v1/reviews", { ...body, rating: 4.5 })).status).toBe(400);
      expect((await poster.post("/api/v1/reviews", { ...body, comment: undefined })).status).toBe(
        400,
      );
      const response = await poster.post("/api/v1/reviews", body);
      expect(response.status).toBe(201);
      expect(response.body.data).toEqual({
        id: expect.any(String),
        agentId,
        jobId: job.id,
        reviewerAddress: poster.account!.address,
        rating: 4,
        comment: "Going well",
        createdAt: expect.any(String),
      });
      expect((await poster.post("/api/v1/reviews", body)).status).toBe(409);
    });

    it("refuses reviews on an unpaid open job (409)", async () => {
      const { job } = await openJobWithBids();
      const response = await poster.post("/api/v1/reviews", {
        agentId,
        jobId: job.id,
        rating: 5,
        comment: "",
      });
      expect(response.status).toBe(409);
    });

    it("lists an agent's reviews newest first, across pages; agentId is required", async () => {
      // An agent of its own with three reviews, written one after the other.
      const reviewer = await newClient(server).signIn();
      const agent = (await operator.post("/api/v1/agents", { name: "Rated", categories: ["seo"] }))
        .body.data;
      const written: string[] = [];
      for (const rating of [3, 4, 5]) {
        const job = (await reviewer.post("/api/v1/jobs", validJob)).body.data;
        const bid = (
          await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
            agentId: agent.id,
            bidUsdc: 2,
            etaDays: 1,
            message: "ok",
          })
        ).body.data;
        const txHash = await payFor(market, reviewer, job.id, bid.id);
        expect(
          (await reviewer.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: bid.id, txHash }))
            .status,
        ).toBe(200);
        const review = await reviewer.post("/api/v1/reviews", {
          agentId: agent.id,
          jobId: job.id,
          rating,
          comment: `rated ${rating}`,
        });
        expect(review.status).toBe(201);
        written.push(review.body.data.id);
      }
      const list = await anon.get(`/api/v1/reviews?agentId=${agent.id}`);
      expect(list.status).toBe(200);
      expect(list.body.data.map((review: { id: string }) => review.id)).toEqual(
        [...written].reverse(),
      );
      const first = await anon.get(`/api/v1/reviews?agentId=${agent.id}&limit=2`);
      const rest = await anon.get(
        `/api/v1/reviews?agentId=${agent.id}&limit=2&cursor=${first.body.meta.nextCursor}`,
      );
      expect([...first.body.data, ...rest.body.data].map((r: { id: string }) => r.id)).toEqual(
        [...written].reverse(),
      );
      expect(rest.body.meta.nextCursor).toBeNull();
      expect((await anon.get("/api/v1/reviews")).status).toBe(400);
      expect((await anon.get("/api/v1/reviews?agentId=agent_nope")).status).toBe(404);
    });
  });

  describe("deliver, download, complete", () => {
    const file = (text: string, overrides: Record<string, unknown> = {}) => ({
      name: "report.txt",
      size: Buffer.byteLength(text),
      type: "text/plain",
      dataUrl: `data:text/plain;base64,${Buffer.from(text).toString("base64")}`,
      ...overrides,
    });

    it.each([
      [
        "a media type that differs from type",
        file("hi", { type: "text/html" }),
        "attachments.0 (report.txt): dataUrl media type text/plain does not match type text/html",
      ],
      [
        "a size that differs from the data",
        file("hi", { size: 3 }),
        "attachments.0 (report.txt): decoded size 2 does not match size 3",
      ],
      [
        "a non-base64 data URL",
        file("hi", { dataUrl: "data:text/plain,hi" }),
        "attachments.0 (report.txt): dataUrl must be a base64 data: URL",
      ],
      [
        "broken base64",
        file("hi", { dataUrl: "data:text/plain;base64,@@@" }),
        "attachments.0 (report.txt): dataUrl is not valid base64",
      ],
      [
        "not a data URL",
        file("hi", { dataUrl: "https://example.com/x.txt" }),
        "attachments.0 (report.txt): dataUrl must be a base64 data: URL",
      ],
    ])("answers 400 for an attachment with %s", async (_label, attachment, error) => {
      const { job } = await paidJob();
      const response = await operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [attachment],
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error, code: "invalid_attachment" });
      expect((await anon.get(`/api/v1/jobs/${job.id}`)).body.data.status).toBe("in_progress");
    });

    const MiB = 1024 * 1024;
    /** A real file of `bytes` bytes, its declared size equal to its data's. */
    const fileOf = (name: string, bytes: number) => ({
      name,
      size: bytes,
      type: "application/octet-stream",
      dataUrl: `data:application/octet-stream;base64,${Buffer.alloc(bytes, 0x62).toString("base64")}`,
    });

    it("answers 400 for one file of 5 MiB + 1 byte with a matching size (the per-file cap)", async () => {
      const { job } = await paidJob();
      const response = await operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [fileOf("big.bin", 5 * MiB + 1)],
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: "attachments.0.size: an attachment may be at most 5242880 bytes (5 MiB)",
        code: "invalid_request",
      });
      expect((await anon.get(`/api/v1/jobs/${job.id}`)).body.data).toMatchObject({
        status: "in_progress",
        attachments: [],
      });
    });

    it("answers 400 for 10 MiB + 1 byte in all with every file under 5 MiB (the total cap)", async () => {
      const { job } = await paidJob();
      const response = await operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [
          fileOf("a.bin", 4 * MiB),
          fileOf("b.bin", 4 * MiB),
          fileOf("c.bin", 2 * MiB + 1),
        ],
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: "attachments may be at most 10 MiB in all",
        code: "attachments_too_large",
      });
      expect((await anon.get(`/api/v1/jobs/${job.id}`)).body.data).toMatchObject({
        status: "in_progress",
        attachments: [],
      });
    });

    it("answers 400 for 11 attachments and 413 for bodies over 16 MiB", async () => {
      const { job } = await paidJob();
      const eleven = await operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: Array(11).fill(file("a")),
      });
      expect(eleven.status).toBe(400);
      const huge = await operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [file("a")],
        pad: "x".repeat(16 * 1024 * 1024),
      });
      expect(huge.status).toBe(413);
    });

    it("walks the lifecycle: deliver (200), download, complete with review and Verified badge", async () => {
      const { job } = await paidJob();
      expect((await poster.post(`/api/v1/jobs/${job.id}/complete`)).status).toBe(409);
      expect((await poster.post(`/api/v1/jobs/${job.id}/deliver`)).status).toBe(403);
      expect((await stranger.post(`/api/v1/jobs/${job.id}/deliver`)).status).toBe(403);
      expect((await anon.post(`/api/v1/jobs/${job.id}/deliver`)).status).toBe(401);

      const delivered = await operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [file("the report"), file("second", { name: "b.txt" })],
      });
      expect(delivered.status).toBe(200);
      expect(delivered.body.data.status).toBe("delivered");
      expect(delivered.body.data.deliveredAt).toEqual(expect.any(String));
      expect(delivered.body.data.attachments).toEqual([
        { id: expect.any(String), name: "report.txt", size: 10, type: "text/plain" },
        { id: expect.any(String), name: "b.txt", size: 6, type: "text/plain" },
      ]);
      expect((await operator.post(`/api/v1/jobs/${job.id}/deliver`)).status).toBe(409);

      const attachmentId = delivered.body.data.attachments[0].id;
      const download = await poster.get(`/api/v1/jobs/${job.id}/attachments/${attachmentId}`);
      expect(download.status).toBe(200);
      expect(download.body).toBe("the report");
      expect(download.headers.get("content-disposition")).toMatch(
        /^attachment; filename="report.txt"/,
      );
      expect(download.headers.get("x-content-type-options")).toBe("nosniff");
      expect(
        (await operator.get(`/api/v1/jobs/${job.id}/attachments/${attachmentId}`)).status,
      ).toBe(200);
      expect(
        (await stranger.get(`/api/v1/jobs/${job.id}/attachments/${attachmentId}`)).status,
      ).toBe(403);
      expect((await anon.get(`/api/v1/jobs/${job.id}/attachments/${attachmentId}`)).status).toBe(
        401,
      );
      expect((await poster.get(`/api/v1/jobs/${job.id}/attachments/att_nope`)).status).toBe(404);

      expect((await operator.post(`/api/v1/jobs/${job.id}/complete`)).status).toBe(403);
      expect((await poster.post(`/api/v1/jobs/${job.id}/complete`, { rating: 0 })).status).toBe(
        400,
      );
      expect(
        (await poster.post(`/api/v1/jobs/${job.id}/complete`, { comment: "no rating" })).status,
      ).toBe(400);
      const before = (await anon.get(`/api/v1/agents/${agentId}`)).body.data;
      const completed = await poster.post(`/api/v1/jobs/${job.id}/complete`, {
        rating: 5,
        comment: "Great",
      });
      expect(completed.status).toBe(200);
      expect(completed.body.data).toMatchObject({
        status: "completed",
        posterVerified: true,
        completedAt: expect.any(String),
      });
      expect((await poster.post(`/api/v1/jobs/${job.id}/complete`)).status).toBe(409);

      const after = (await anon.get(`/api/v1/agents/${agentId}`)).body.data;
      expect(after.completedJobs).toBe(before.completedJobs + 1);
      expect(after.reviewCount).toBe(before.reviewCount + 1);
      const reviews = (await anon.get(`/api/v1/reviews?agentId=${agentId}`)).body.data;
      expect(reviews[0]).toMatchObject({ jobId: job.id, rating: 5, comment: "Great" });

      // The badge shows on every job of this poster, old and new.
      const jobs = (await anon.get("/api/v1/jobs?limit=100")).body.data.filter(
        (j: { posterAddress: string }) => j.posterAddress === poster.account!.address,
      );
      expect(jobs.length).toBeGreaterThan(1);
      expect(jobs.every((j: { posterVerified: boolean }) => j.posterVerified)).toBe(true);
    });

    it("does not create a second review when the poster already reviewed in progress", async () => {
      const { job } = await paidJob();
      await poster.post("/api/v1/reviews", {
        agentId,
        jobId: job.id,
        rating: 3,
        comment: "ok so far",
      });
      await operator.post(`/api/v1/jobs/${job.id}/deliver`);
      const completed = await poster.post(`/api/v1/jobs/${job.id}/complete`, {
        rating: 5,
        comment: "final",
      });
      expect(completed.status).toBe(200);
      const mine = (
        await anon.get(`/api/v1/reviews?agentId=${agentId}&limit=100`)
      ).body.data.filter((review: { jobId: string }) => review.jobId === job.id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ rating: 3, comment: "ok so far" });
    });
  });

  describe("the error path", () => {
    it("answers JSON 404 for unknown API paths and JSON 405 for wrong methods", async () => {
      const unknown = await anon.get("/api/v2/nothing");
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: expect.any(String), code: "not_found" });
      const wrong = await anon.request("DELETE", "/api/v1/jobs");
      expect(wrong.status).toBe(405);
      expect(wrong.body).toEqual({ error: expect.any(String), code: "method_not_allowed" });
      expect(wrong.headers.get("allow")).toBe("GET, POST");
      expect(wrong.headers.get("content-type")).toMatch(/application\/json/);
    });

    it("answers 404 for ids PostgreSQL could never hold and 400 for undecodable paths", async () => {
      expect((await anon.get("/api/v1/jobs/%00")).status).toBe(404);
      expect((await anon.get("/api/v1/agents/a%00b")).status).toBe(404);
      expect((await anon.get("/api/v1/reviews?agentId=%00")).status).toBe(404);
      expect(
        (
          await poster.post("/api/v1/reviews", {
            agentId: "a\u0000",
            jobId: "j\u0000",
            rating: 5,
            comment: "",
          })
        ).status,
      ).toBe(404);
      const undecodable = await anon.get("/api/v1/jobs/%ZZ");
      expect(undecodable.status).toBe(400);
      expect(undecodable.body).toEqual({ error: expect.any(String), code: "invalid_path" });
    });

    it("refuses cookie writes from a foreign Origin (403), accepts our own", async () => {
      const foreign = await poster.post("/api/v1/jobs", validJob, {
        origin: "https://evil.example",
      });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toEqual({ error: expect.any(String), code: "cross_origin_request" });
      const own = await poster.post("/api/v1/jobs", validJob, { origin: server.url });
      expect(own.status).toBe(201);
    });

    it("ships no test hooks: the old settlement hook's path is an unknown endpoint (404)", async () => {
      const response = await anon.post("/api/test/settlements", {});
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: "no such API endpoint", code: "not_found" });
    });
  });
});

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

  it("off (the default): /api/dev/echo is an unknown endpoint (404) for GET and POST", async () => {
    const server = await testServer({});
    const client = new ApiClient(server.url);
    for (const response of [
      await client.get("/api/dev/echo?key=list"),
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

describe("rate limiting", () => {
  let market: TestMarket;
  let server: RunningServer;
  beforeAll(async () => {
    market = await startTestMarket("pglite", {
      RATE_LIMIT_WRITES_PER_MINUTE: "3",
      RATE_LIMIT_AUTH_PER_MINUTE: "5",
    });
    server = market.server;
  });
  afterAll(async () => {
    await market?.stop();
  });

  it("answers 429 with Retry-After past the per-wallet write limit and the sign-in limit", async () => {
    const client = await new ApiClient(
      server.url,
      privateKeyToAccount(generatePrivateKey()),
    ).signIn();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await client.post("/api/v1/jobs", validJob)).status);
    expect(statuses.slice(0, 3)).toEqual([201, 201, 201]);
    const limited = await client.post("/api/v1/jobs", validJob);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: expect.any(String), code: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const nonces = [];
    for (let i = 0; i < 6; i++) nonces.push((await client.get("/api/auth/nonce")).status);
    expect(nonces).toContain(429);
  });
});

describe("production start", () => {
  it("refuses to start without SESSION_SECRET or APP_URL, or with bad values, with a clear message", async () => {
    const database = await prepareServerDatabase("pglite");
    try {
      await expect(startServer({ ...database.env, SESSION_SECRET: "" })).rejects.toThrow(
        /SESSION_SECRET is not set/,
      );
      await expect(startServer({ ...database.env, SESSION_SECRET: "too-short" })).rejects.toThrow(
        /SESSION_SECRET: must be at least 32 characters/,
      );
      await expect(startServer({ ...database.env, APP_URL: "" })).rejects.toThrow(
        /APP_URL is not set/,
      );
      await expect(startServer({ ...database.env, TRUST_PROXY_HOPS: "one" })).rejects.toThrow(
        /TRUST_PROXY_HOPS: must be a whole number/,
      );
      await expect(startServer({ ...database.env, REDIS_URL: "http://x" })).rejects.toThrow(
        /REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/,
      );
    } finally {
      await database.cleanup();
    }
  });

  it("refuses to run as plain `next start`, which would take client addresses from headers", async () => {
    const database = await prepareServerDatabase("pglite");
    try {
      // It must refuse before serving anything; port 0 lets the kernel pick one if it did not.
      const port = 0;
      const child = spawn(
        path.resolve("node_modules/.bin/next"),
        ["start", "-H", "127.0.0.1", "-p", String(port)],
        {
          env: {
            ...process.env,
            ...database.env,
            NODE_ENV: "production",
            SESSION_SECRET: TEST_SESSION_SECRET,
            APP_URL: `http://127.0.0.1:${port}`,
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      const code = await new Promise((resolve) => child.once("exit", resolve));
      expect(code).not.toBe(0);
      expect(output).toMatch(/start it with `npm start` or `npm run dev`/);
    } finally {
      await database.cleanup();
    }
  });

  it.each<[string, { NODE_ENV: "test" | "production" }, string[], RegExp]>([
    // NODE_ENV alone never turns a production start into a test server (which skips
    // production's refusals): that takes --test, on loopback.
    [
      "NODE_ENV=test without --test",
      { NODE_ENV: "test" },
      ["-H", "127.0.0.1"],
      /NODE_ENV=test does not match a production start/,
    ],
    [
      "--test beyond loopback",
      { NODE_ENV: "test" },
      ["--test", "-H", "0.0.0.0"],
      /listens on loopback only/,
    ],
    [
      "NODE_ENV=production with --dev",
      { NODE_ENV: "production" },
      ["--dev", "-H", "127.0.0.1"],
      /does not match a development start/,
    ],
  ])("refuses %s", async (_name, env, args, message) => {
    const child = spawn(process.execPath, [...appServerArgs(), ...args, "-p", "0"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(output).toMatch(message);
  });
});
