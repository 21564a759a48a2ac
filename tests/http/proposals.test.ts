// Proposals: bid, validate, role rules, one live bid per agent, reject.
// Part of the HTTP contract against the production app server and a real database (PGlite,
// and PostgreSQL when TEST_DATABASE_URL is set), with real SIWE signatures from viem
// accounts; the cast is tests/helpers/contract.ts.
import { describe, expect, it } from "vitest";
import { useContractCast, validJob } from "@/tests/helpers/contract";
import { DB_KINDS } from "@/tests/helpers/db";
import { payFor } from "@/tests/helpers/market";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

describe.each(DB_KINDS)("marketplace API over HTTP on %s", (kind) => {
  const cast = useContractCast(kind);

  describe("proposals", () => {
    it("submits a bid (201) and lists active bids oldest first", async () => {
      const { job, bid, otherBid } = await cast.openJobWithBids();
      expect(bid).toEqual({
        id: expect.any(String),
        jobId: job.id,
        agentId: cast.agentId,
        bidUsdc: 20,
        etaDays: 2,
        message: "I can do it",
        // The agent's wallet (its operator's by default) when the bid was made: who gets paid.
        payeeAddress: cast.operator.account!.address,
        status: "pending",
        createdAt: expect.any(String),
      });
      const list = await cast.anon.get(`/api/v1/jobs/${job.id}/proposals`);
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
      const job = (await cast.poster.post("/api/v1/jobs", validJob)).body.data;
      const response = await cast.operator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId: cast.agentId,
        bidUsdc: 5,
        etaDays: 1,
        message: "hi",
        ...change,
      });
      expect(response.status).toBe(400);
    });

    it("applies the role rules (401, 403) and lookups (404)", async () => {
      const job = (await cast.poster.post("/api/v1/jobs", validJob)).body.data;
      const bid = { agentId: cast.agentId, bidUsdc: 5, etaDays: 1, message: "hi" };
      expect((await cast.anon.post(`/api/v1/jobs/${job.id}/proposals`, bid)).status).toBe(401);
      expect((await cast.stranger.post(`/api/v1/jobs/${job.id}/proposals`, bid)).status).toBe(403);
      const ownAgent = (
        await cast.poster.post("/api/v1/agents", { name: "Self", categories: ["research"] })
      ).body.data;
      const own = await cast.poster.post(`/api/v1/jobs/${job.id}/proposals`, {
        ...bid,
        agentId: ownAgent.id,
      });
      // The poster's own agent pays the poster: refused as a self-payment.
      expect(own.status).toBe(403);
      expect(own.body).toMatchObject({
        code: "self_payment",
        error: expect.stringMatching(/itself/),
      });
      expect((await cast.operator.post(`/api/v1/jobs/job_nope/proposals`, bid)).status).toBe(404);
      expect(
        (
          await cast.operator.post(`/api/v1/jobs/${job.id}/proposals`, {
            ...bid,
            agentId: "agent_nope",
          })
        ).status,
      ).toBe(404);
      expect((await cast.anon.get(`/api/v1/jobs/job_nope/proposals`)).status).toBe(404);
    });

    it("refuses a second active bid by the same agent (409), allows one after a rejection", async () => {
      const { job, bid } = await cast.openJobWithBids();
      const again = await cast.operator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId: cast.agentId,
        bidUsdc: 19,
        etaDays: 2,
        message: "cheaper",
      });
      expect(again.status).toBe(409);
      expect(
        (await cast.poster.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status,
      ).toBe(200);
      const rebid = await cast.operator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId: cast.agentId,
        bidUsdc: 19,
        etaDays: 2,
        message: "cheaper",
      });
      expect(rebid.status).toBe(201);
    });

    it("rejects (200 → the proposal) and hides rejected bids unless asked", async () => {
      const { job, bid, otherBid } = await cast.openJobWithBids();
      expect(
        (await cast.stranger.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status,
      ).toBe(403);
      expect(
        (await cast.operator.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status,
      ).toBe(403);
      expect(
        (await cast.anon.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status,
      ).toBe(401);
      expect(
        (await cast.poster.post(`/api/v1/jobs/${job.id}/proposals/prop_nope/reject`)).status,
      ).toBe(404);
      const response = await cast.poster.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`);
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ id: bid.id, status: "rejected" });
      expect(
        (await cast.poster.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`)).status,
      ).toBe(409);
      const active = (await cast.anon.get(`/api/v1/jobs/${job.id}/proposals`)).body.data;
      expect(active.map((p: { id: string }) => p.id)).toEqual([otherBid.id]);
      const rejected = (await cast.anon.get(`/api/v1/jobs/${job.id}/proposals?status=rejected`))
        .body.data;
      expect(rejected.map((p: { id: string }) => p.id)).toEqual([bid.id]);
      expect(
        (await cast.anon.get(`/api/v1/jobs/${job.id}/proposals?status=all`)).body.data,
      ).toHaveLength(2);
      expect((await cast.anon.get(`/api/v1/jobs/${job.id}/proposals?status=maybe`)).status).toBe(
        400,
      );
      // The job itself does not change.
      expect((await cast.anon.get(`/api/v1/jobs/${job.id}`)).body.data.status).toBe("open");
    });

    it("answers 404 for a proposal of another job", async () => {
      const a = await cast.openJobWithBids();
      const b = await cast.openJobWithBids();
      expect(
        (await cast.poster.post(`/api/v1/jobs/${a.job.id}/proposals/${b.bid.id}/reject`)).status,
      ).toBe(404);
      const txHash = await payFor(cast.market, cast.poster, b.job.id, b.bid.id);
      expect(
        (
          await cast.poster.post(`/api/v1/jobs/${a.job.id}/accept`, {
            proposalId: b.bid.id,
            txHash,
          })
        ).status,
      ).toBe(404);
    });
  });
});
