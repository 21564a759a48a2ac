// Reputation only real work can earn, in-process on PGlite with the real local chain: the
// minimum amount, no self-payment, and a badge, rating and completed-job count that come only
// from payments of at least the minimum to someone else. Legacy rows (seeded straight into
// the tables, as data from before these rules) must count for nothing.
import { describe, expect, it } from "@/tests/helpers/fixture";
import type { LocalAccount } from "viem";
import { settleJobPayment } from "@/lib/payments/settle/settle";
import {
  agentInput,
  consentAsPayee,
  type InProcessMarket,
  jobInput,
  jobWithBid,
  newWallet,
  proposalInput,
  resourceUrl,
  seedPaidJob,
  settle,
  signedPayment,
} from "@/tests/helpers/in-process";
import { getAgent, registerAgent } from "./agents";
import { createJob, getJob } from "./jobs";
import { submitProposal } from "./proposals";
import { acceptProposal, completeJob, deliverJob } from "./transitions";

/** A job of a fresh poster, paid through settle, accepted, delivered and completed with 5★. */
async function completedRealJob(
  market: InProcessMarket,
  operator: LocalAccount,
  agentId: string,
  bidUsdc: number,
) {
  const poster = newWallet();
  const job = await createJob(market.db, poster.address, jobInput({ budgetUsdc: bidUsdc }));
  const bid = await submitProposal(
    market.db,
    operator.address,
    job.id,
    proposalInput(agentId, { bidUsdc }),
  );
  const target = { jobId: job.id, proposalId: bid.id };
  const txHash = await settle(market, target, await signedPayment(market, poster, target));
  await acceptProposal(market.db, poster.address, job.id, { proposalId: bid.id, txHash });
  await deliverJob(market.db, operator.address, job.id, { attachments: [] });
  await completeJob(market.db, poster.address, job.id, { rating: 5, comment: "great" });
  return { poster, jobId: job.id };
}

describe("the farming cycle of the issue: each step that must refuse it does", () => {
  it("B names A's wallet as payee; A posts dust, then a real budget; B cannot bid for A's money", async ({
    market,
  }) => {
    const [a, b] = [newWallet(), newWallet()];
    // B registers an agent paying A: A has not agreed, so the agent is paid nowhere.
    const agent = await registerAgent(
      market.db,
      b.address,
      agentInput({ walletAddress: a.address }),
    );
    expect(agent).toMatchObject({ walletAddress: null, payeeConsentPending: true });
    // A posts a dust job: 400.
    await expect(
      createJob(market.db, a.address, jobInput({ budgetUsdc: 0.000001 })),
    ).rejects.toMatchObject({ status: 400, code: "amount_below_minimum" });
    const job = await createJob(market.db, a.address, jobInput({ budgetUsdc: 5 }));
    // B bids dust: 400; a real bid: 409, the payee never agreed.
    await expect(
      submitProposal(market.db, b.address, job.id, proposalInput(agent.id, { bidUsdc: 0.000001 })),
    ).rejects.toMatchObject({ status: 400, code: "amount_below_minimum" });
    await expect(
      submitProposal(market.db, b.address, job.id, proposalInput(agent.id, { bidUsdc: 5 })),
    ).rejects.toMatchObject({ status: 409, code: "payee_consent_pending" });
    // A agrees (it is in on it): the bid would pay A's own job to A. 403 self_payment.
    await consentAsPayee(market.db, a, agent.id);
    await expect(
      submitProposal(market.db, b.address, job.id, proposalInput(agent.id, { bidUsdc: 5 })),
    ).rejects.toMatchObject({ status: 403, code: "self_payment" });
    expect(await getJob(market.db, job.id)).toMatchObject({ posterVerified: false });
  });
});

describe("settle refuses a bid left from before the rules, before any challenge", () => {
  it("409 self_payment for a bid whose payee is the poster", async ({ market }) => {
    const poster = newWallet();
    const { job, proposal } = await jobWithBid(market.db, poster.address, newWallet().address);
    await market.db.proposal.update({
      where: { id: proposal.id },
      data: { payeeAddress: poster.address },
    });
    const target = { jobId: job.id, proposalId: proposal.id };
    await expect(
      settleJobPayment(market.db, {
        ...target,
        paymentHeader: null,
        resourceUrl: resourceUrl(target),
      }),
    ).rejects.toMatchObject({ status: 409, code: "self_payment" });
  });

  it("409 payee_consent_pending for a bid paying a wallet that never agreed", async ({
    market,
  }) => {
    const poster = newWallet();
    const { job, proposal } = await jobWithBid(market.db, poster.address, newWallet().address);
    await market.db.proposal.update({
      where: { id: proposal.id },
      data: { payeeAddress: newWallet().address },
    });
    const target = { jobId: job.id, proposalId: proposal.id };
    await expect(
      settleJobPayment(market.db, {
        ...target,
        paymentHeader: null,
        resourceUrl: resourceUrl(target),
      }),
    ).rejects.toMatchObject({ status: 409, code: "payee_consent_pending" });
  });
});

describe("the Verified badge", () => {
  it("is earned by completing a job paid at least the minimum to someone else", async ({
    market,
  }) => {
    const operator = newWallet();
    const agent = await registerAgent(market.db, operator.address, agentInput());
    const { poster, jobId } = await completedRealJob(market, operator, agent.id, 1);
    expect(await getJob(market.db, jobId)).toMatchObject({ posterVerified: true });
    expect(
      await market.db.wallet.findUniqueOrThrow({ where: { address: poster.address } }),
    ).toMatchObject({ verified: true });
  });

  it.for([
    ["paid below the minimum", { amountAtomic: 999_999n }],
    ["paid by the agent's own operator", { amountAtomic: 50_000_000n, byOperator: true }],
  ] as const)("is not earned by completing a legacy job %s", async ([_, options], { market }) => {
    const poster = newWallet();
    const operator = "byOperator" in options ? poster : newWallet();
    const agent = await registerAgent(market.db, operator.address, agentInput());
    const jobId = await seedPaidJob(market.db, {
      posterAddress: poster.address,
      agentId: agent.id,
      amountAtomic: options.amountAtomic,
      status: "delivered",
    });
    const completed = await completeJob(market.db, poster.address, jobId, { rating: 5 });
    expect(completed).toMatchObject({ status: "completed", posterVerified: false });
    // Nor does the agent gain a rating or a completed job from it.
    expect(await getAgent(market.db, agent.id)).toMatchObject({
      rating: 0,
      reviewCount: 0,
      completedJobs: 0,
      paidByPosters: 0,
      totalPaidUsdc: 0,
    });
  });
});

describe("an agent's rating, completed jobs and earnings", () => {
  it("count only reputable payments, and match the settlements ledger", async ({ market }) => {
    const operator = newWallet();
    const agent = await registerAgent(market.db, operator.address, agentInput());
    // Two real jobs through the product (5★ each) from two posters ...
    await completedRealJob(market, operator, agent.id, 3);
    const second = await completedRealJob(market, operator, agent.id, 2.5);
    // ... a third job of the second poster, seeded, 1★ ...
    const repeat = await seedPaidJob(market.db, {
      posterAddress: second.poster.address,
      agentId: agent.id,
      amountAtomic: 4_000_000n,
      status: "completed",
    });
    await market.db.review.create({
      data: {
        id: `rev_${repeat}`,
        agentId: agent.id,
        jobId: repeat,
        reviewerAddress: second.poster.address,
        rating: 1,
        comment: "",
      },
    });
    // ... and legacy dust and self-paid jobs, each 5★, that must not count.
    const farmer = newWallet();
    for (const [amountAtomic, payer] of [
      [1n, farmer.address],
      [10_000_000n, operator.address],
    ] as const) {
      const jobId = await seedPaidJob(market.db, {
        posterAddress: farmer.address,
        agentId: agent.id,
        amountAtomic,
        status: "completed",
        payer,
      });
      await market.db.review.create({
        data: {
          id: `rev_${jobId}`,
          agentId: agent.id,
          jobId,
          reviewerAddress: farmer.address,
          rating: 5,
          comment: "",
        },
      });
    }

    const view = await getAgent(market.db, agent.id);
    expect(view).toMatchObject({
      rating: 3.67, // (5 + 5 + 1) / 3
      reviewCount: 3,
      completedJobs: 3,
      paidByPosters: 2,
      totalPaidUsdc: 9.5, // 3 + 2.5 + 4
    });
    // The same figures straight from the ledger.
    const ledger = await market.db.settlement.findMany({
      where: {
        status: "succeeded",
        amountAtomic: { gte: 1_000_000n },
        proposalId: {
          in: (await market.db.proposal.findMany({ where: { agentId: agent.id } })).map(
            (proposal) => proposal.id,
          ),
        },
        NOT: { payer: operator.address },
      },
    });
    expect(new Set(ledger.map((row) => row.payer.toLowerCase())).size).toBe(view.paidByPosters);
    expect(ledger.reduce((sum, row) => sum + row.amountAtomic, 0n)).toBe(9_500_000n);
  });
});
