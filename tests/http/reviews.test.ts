// Reviews: post on a paid job, once per wallet; list an agent's, newest first.
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

  describe("reviews", () => {
    it("posts a review on a paid job in progress (201), once per wallet (409)", async () => {
      const { job } = await cast.paidJob();
      const body = { agentId: cast.agentId, jobId: job.id, rating: 4, comment: "Going well" };
      expect((await cast.anon.post("/api/v1/reviews", body)).status).toBe(401);
      expect((await cast.operator.post("/api/v1/reviews", body)).status).toBe(403);
      expect(
        (await cast.poster.post("/api/v1/reviews", { ...body, agentId: cast.otherAgentId })).status,
      ).toBe(400);
      expect(
        (await cast.poster.post("/api/v1/reviews", { ...body, jobId: "job_nope" })).status,
      ).toBe(404);
      expect((await cast.poster.post("/api/v1/reviews", { ...body, rating: 6 })).status).toBe(400);
      expect((await cast.poster.post("/api/v1/reviews", { ...body, rating: 4.5 })).status).toBe(
        400,
      );
      expect(
        (await cast.poster.post("/api/v1/reviews", { ...body, comment: undefined })).status,
      ).toBe(400);
      const response = await cast.poster.post("/api/v1/reviews", body);
      expect(response.status).toBe(201);
      expect(response.body.data).toEqual({
        id: expect.any(String),
        agentId: cast.agentId,
        jobId: job.id,
        reviewerAddress: cast.poster.account!.address,
        rating: 4,
        comment: "Going well",
        createdAt: expect.any(String),
      });
      expect((await cast.poster.post("/api/v1/reviews", body)).status).toBe(409);
    });

    it("refuses reviews on an unpaid open job (409)", async () => {
      const { job } = await cast.openJobWithBids();
      const response = await cast.poster.post("/api/v1/reviews", {
        agentId: cast.agentId,
        jobId: job.id,
        rating: 5,
        comment: "",
      });
      expect(response.status).toBe(409);
    });

    it("lists an agent's reviews newest first, across pages; agentId is required", async () => {
      // An agent of its own with three reviews, written one after the other.
      const reviewer = await cast.newClient().signIn();
      const agent = (
        await cast.operator.post("/api/v1/agents", { name: "Rated", categories: ["seo"] })
      ).body.data;
      const written: string[] = [];
      for (const rating of [3, 4, 5]) {
        const job = (await reviewer.post("/api/v1/jobs", validJob)).body.data;
        const bid = (
          await cast.operator.post(`/api/v1/jobs/${job.id}/proposals`, {
            agentId: agent.id,
            bidUsdc: 2,
            etaDays: 1,
            message: "ok",
          })
        ).body.data;
        const txHash = await payFor(cast.market, reviewer, job.id, bid.id);
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
      const list = await cast.anon.get(`/api/v1/reviews?agentId=${agent.id}`);
      expect(list.status).toBe(200);
      expect(list.body.data.map((review: { id: string }) => review.id)).toEqual(
        [...written].reverse(),
      );
      const first = await cast.anon.get(`/api/v1/reviews?agentId=${agent.id}&limit=2`);
      const rest = await cast.anon.get(
        `/api/v1/reviews?agentId=${agent.id}&limit=2&cursor=${first.body.meta.nextCursor}`,
      );
      expect([...first.body.data, ...rest.body.data].map((r: { id: string }) => r.id)).toEqual(
        [...written].reverse(),
      );
      expect(rest.body.meta.nextCursor).toBeNull();
      expect((await cast.anon.get("/api/v1/reviews")).status).toBe(400);
      expect((await cast.anon.get("/api/v1/reviews?agentId=agent_nope")).status).toBe(404);
    });
  });
});
