// Accept, pay first: a proposal is accepted only with the hash of its own settlement.
// Part of the HTTP contract against the production app server and a real database (PGlite,
// and PostgreSQL when TEST_DATABASE_URL is set), with real SIWE signatures from viem
// accounts; the cast is tests/helpers/contract.ts.
import { describe, expect, it } from "vitest";
import { hash, useContractCast } from "@/tests/helpers/contract";
import { DB_KINDS } from "@/tests/helpers/db";
import { editLedger } from "@/tests/helpers/ledger";
import { payFor } from "@/tests/helpers/market";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

describe.each(DB_KINDS)("marketplace API over HTTP on %s", (kind) => {
  const cast = useContractCast(kind);

  describe("accept (pay first)", () => {
    it("answers 402 without a matching settlement, 400 for a malformed hash", async () => {
      const { job, bid, otherBid } = await cast.openJobWithBids();
      const noPayment = await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
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
        (
          await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
            proposalId: bid.id,
            txHash: "0x12",
          })
        ).status,
      ).toBe(400);
      expect(
        (await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: bid.id })).status,
      ).toBe(400);
      // A settlement for the other proposal does not pay for this one.
      const txHash = await payFor(cast.market, cast.poster, job.id, otherBid.id);
      const other = await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
        proposalId: bid.id,
        txHash,
      });
      expect(other.status).toBe(402);
      expect(other.body.error).toMatch(/not a successful settlement of this job and proposal/);
    });

    it("answers 402 for another job's settlement hash", async () => {
      const a = await cast.openJobWithBids();
      const b = await cast.openJobWithBids();
      const txHash = await payFor(cast.market, cast.poster, b.job.id, b.bid.id);
      const response = await cast.poster.post(`/api/v1/jobs/${a.job.id}/accept`, {
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
          [{ payer: cast.stranger.account!.address }, /not paid by the poster/],
          [
            { payTo: cast.stranger.account!.address },
            /not paid to the wallet the bid was made with/,
          ],
          [{ amountAtomic: 1n }, /its amount is not the bid/],
          [{ network: "eip155:8453" }, /made on eip155:8453/],
          [{ asset: "0x0000000000000000000000000000000000000001" }, /not USDC/],
        ];
        for (const [edit, refusal] of cases) {
          const { job, bid } = await cast.openJobWithBids();
          const txHash = await payFor(cast.market, cast.poster, job.id, bid.id);
          await editLedger(cast.market.databaseUrl!, { jobId: job.id }, edit);
          const response = await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
            proposalId: bid.id,
            txHash,
          });
          expect(response.status, Object.keys(edit).join()).toBe(402);
          expect(response.body.error).toMatch(refusal);
        }
        // The row names a real transaction of the poster's, but one that paid another agent
        // another amount: the chain's receipt disagrees with the ledger.
        const first = await cast.openJobWithBids();
        const firstHash = await payFor(cast.market, cast.poster, first.job.id, first.otherBid.id);
        const { job, bid } = await cast.openJobWithBids();
        await payFor(cast.market, cast.poster, job.id, bid.id);
        await editLedger(
          cast.market.databaseUrl!,
          { jobId: first.job.id },
          { txHash: `0x${"0".repeat(63)}1` },
        );
        await editLedger(cast.market.databaseUrl!, { jobId: job.id }, { txHash: firstHash });
        const response = await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
          proposalId: bid.id,
          txHash: firstHash,
        });
        expect(response.status).toBe(402);
        expect(response.body.error).toMatch(/the chain's receipt does not show this payment/);
      },
    );

    it("applies role rules and lookups (401, 403, 404)", async () => {
      const { job, bid } = await cast.openJobWithBids();
      const body = { proposalId: bid.id, txHash: hash(1) };
      expect((await cast.anon.post(`/api/v1/jobs/${job.id}/accept`, body)).status).toBe(401);
      expect((await cast.operator.post(`/api/v1/jobs/${job.id}/accept`, body)).status).toBe(403);
      expect((await cast.poster.post(`/api/v1/jobs/job_nope/accept`, body)).status).toBe(404);
      expect(
        (
          await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
            ...body,
            proposalId: "prop_nope",
          })
        ).status,
      ).toBe(404);
    });

    it("accepts a paid proposal (200 → the job in progress), rejects the rest, and is idempotent", async () => {
      const { job, bid, otherBid } = await cast.openJobWithBids();
      const txHash = await payFor(cast.market, cast.poster, job.id, bid.id);
      const response = await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
        proposalId: bid.id,
        txHash,
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        id: job.id,
        status: "in_progress",
        assignedAgentId: cast.agentId,
        acceptedProposalId: bid.id,
        paymentTxHash: txHash,
      });
      const proposals = (await cast.anon.get(`/api/v1/jobs/${job.id}/proposals?status=all`)).body
        .data;
      expect(
        Object.fromEntries(proposals.map((p: { id: string; status: string }) => [p.id, p.status])),
      ).toEqual({
        [bid.id]: "accepted",
        [otherBid.id]: "rejected",
      });
      const retry = await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
        proposalId: bid.id,
        txHash,
      });
      expect(retry.status).toBe(200);
      expect(retry.body.data).toEqual(response.body.data);
      expect(
        (
          await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
            proposalId: otherBid.id,
            txHash,
          })
        ).status,
      ).toBe(409);
      expect(
        (await cast.poster.post(`/api/v1/jobs/${job.id}/proposals/${otherBid.id}/reject`)).status,
      ).toBe(409);
      const late = await cast.otherOperator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId: cast.otherAgentId,
        bidUsdc: 1,
        etaDays: 1,
        message: "late",
      });
      expect(late.status).toBe(409);
    });
  });
});
