// Protected payments (issue 25) in a wallet's money and an agent's reputation, over HTTP against
// the production build and the local chain with our Commerce Payments stand-in: a held payment
// is shown as held and is neither earned nor spent; a release counts as earned after the
// platform's fee (PLATFORM_FEE_BPS 250 here) and as spent with it; a refund (a dispute resolved
// by an admin, a cancel after the delivery deadline) never counts, in earnings or reputation.
// GET /api/v1/me/earnings, GET /api/v1/agents/:id and the /me page say the same. Each test
// builds on the one before; the one that moves the chain's clock runs last (a later payment's
// client signs against the wall clock).
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintTestUsdc } from "@/dev/local-chain";
import { ApiClient } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import { escrowClients, tokenBalance } from "@/tests/helpers/escrow";
import { payProtected } from "@/tests/helpers/escrow-payments";
import {
  BUSY_TEST_SERVER_ENV,
  createJob,
  expectStatus,
  registerAgent,
  signedInClient,
  submitProposal,
} from "@/tests/helpers/fixtures";
import { payFor, startTestMarket, type TestMarket } from "@/tests/helpers/market";

const admin = privateKeyToAccount(generatePrivateKey());
const feeReceiver = privateKeyToAccount(generatePrivateKey()).address;
const HOUR = 3600;

/** The words of a page, without tags, scripts or React's text separators. */
function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
}

const noEscrow = { payments: 0, heldUsdc: 0, releasedUsdc: 0, feeUsdc: 0, refundedUsdc: 0 };

describe.each([DB_KINDS.at(-1)!])("protected payments in earnings and reputation on %s", (kind) => {
  let market: TestMarket;
  let poster: ApiClient;
  let otherPoster: ApiClient;
  let operator: ApiClient;
  let adminClient: ApiClient;
  let agent: { id: string };
  let agentWallet: Address;
  let balanceOf: (address: Address) => Promise<bigint>;
  const jobs = {} as Record<"now" | "held" | "refunded" | "split" | "cancelled", string>;
  const month = () => new Date().toISOString().slice(0, 7);

  beforeAll(async () => {
    market = await startTestMarket(kind, {
      ...BUSY_TEST_SERVER_ENV,
      ADMIN_ADDRESSES: admin.address,
      PLATFORM_FEE_BPS: "250",
      PLATFORM_FEE_RECEIVER: feeReceiver,
      ESCROW_GRACE_HOURS: "1",
      ESCROW_REVIEW_HOURS: "2",
      ESCROW_DISPUTE_HOURS: "24",
      SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
    });
    const url = market.server.url;
    [poster, otherPoster, operator, adminClient] = await Promise.all([
      signedInClient(url),
      signedInClient(url),
      signedInClient(url),
      new ApiClient(url, admin).signIn(),
    ]);
    agent = await registerAgent(operator, "Lens");
    agentWallet = (await operator.get(`/api/v1/agents/${agent.id}`)).body.data
      .walletAddress as Address;
    const { publicClient } = escrowClients(market.chain.rpcUrl);
    balanceOf = (address) => tokenBalance(publicClient, address);
  }, 180_000);
  afterAll(() => market?.stop());

  /** A job of `by`'s with the agent's bid of `bidUsdc`, paid protected and accepted. */
  async function protectedJob(by: ApiClient, bidUsdc: number): Promise<string> {
    const job = await createJob(by, { budgetUsdc: 50 });
    const proposal = await submitProposal(operator, job.id, agent.id, { bidUsdc, etaDays: 1 });
    await mintTestUsdc(market.chain.rpcUrl, by.account!.address, BigInt(bidUsdc * 1_000_000));
    const url = `${market.server.url}/api/jobs/${job.id}/settle?proposalId=${proposal.id}&mode=escrow`;
    const paid = await payProtected(by.account!, url);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expectStatus(
      await by.post(`/api/v1/jobs/${job.id}/accept`, {
        proposalId: proposal.id,
        txHash: paid.body.data.txHash,
      }),
      200,
      "accept",
    );
    return job.id;
  }

  /** A job of the poster's paid now (the spec's exact scheme) and accepted. */
  async function payNowJob(bidUsdc: number): Promise<string> {
    const job = await createJob(poster, { budgetUsdc: 50 });
    const proposal = await submitProposal(operator, job.id, agent.id, { bidUsdc });
    const txHash = await payFor(market, poster, job.id, proposal.id);
    expectStatus(
      await poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: proposal.id, txHash }),
      200,
      "accept",
    );
    return job.id;
  }

  const earnings = async (client: ApiClient) =>
    expectStatus(await client.get("/api/v1/me/earnings"), 200).data;
  const transactionOf = (view: Awaited<ReturnType<typeof earnings>>, jobId: string) =>
    view.transactions.find((tx) => tx.jobId === jobId);
  const reputation = async () =>
    expectStatus(await operator.get(`/api/v1/agents/${agent.id}`), 200).data;
  const myPage = async (client: ApiClient) => {
    const response = await fetch(`${market.server.url}/me`, {
      headers: { cookie: client.cookie! },
    });
    expect(response.status).toBe(200);
    return textOf(await response.text());
  };
  const disputed = async (by: ApiClient, jobId: string) => {
    expectStatus(await operator.post(`/api/v1/jobs/${jobId}/deliver`, {}), 200, "deliver");
    expectStatus(
      await by.post(`/api/v1/jobs/${jobId}/dispute`, { reason: "not what was asked" }),
      200,
      "dispute",
    );
  };

  it("a held payment is shown as held: neither earned nor spent, and no reputation yet", async () => {
    jobs.now = await payNowJob(5);
    jobs.held = await protectedJob(poster, 10);
    // The poster rates the agent while the money is held: it weighs only once released.
    expectStatus(
      await poster.post("/api/v1/reviews", {
        agentId: agent.id,
        jobId: jobs.held,
        rating: 4,
        comment: "on its way",
      }),
      201,
      "review",
    );

    const mine = await earnings(operator);
    expect(mine.earned).toEqual({
      totalUsdc: 5,
      payments: 1,
      byAgent: [{ agentId: agent.id, agentName: "Lens", totalUsdc: 5, payments: 1 }],
      byMonth: [{ month: month(), totalUsdc: 5, payments: 1 }],
    });
    expect(mine.escrow).toEqual({
      earned: { ...noEscrow, payments: 1, heldUsdc: 10 },
      spent: noEscrow,
    });
    expect(transactionOf(mine, jobs.held)).toMatchObject({
      direction: "earned",
      mode: "escrow",
      amountUsdc: 10,
      escrow: { state: "held", heldUsdc: 10, releasedUsdc: 0, feeUsdc: 0, refundedUsdc: 0 },
    });
    expect(transactionOf(mine, jobs.now)).toMatchObject({
      mode: "now",
      amountUsdc: 5,
      escrow: null,
    });

    const theirs = await earnings(poster);
    expect(theirs.spent).toEqual({
      totalUsdc: 5,
      payments: 1,
      byMonth: [{ month: month(), totalUsdc: 5, payments: 1 }],
    });
    expect(theirs.escrow).toEqual({
      earned: noEscrow,
      spent: { ...noEscrow, payments: 1, heldUsdc: 10 },
    });

    expect(await reputation()).toMatchObject({
      totalPaidUsdc: 5,
      paidByPosters: 1,
      reviewCount: 0,
      completedJobs: 0,
    });

    const operatorPage = await myPage(operator);
    expect(operatorPage).toContain("Held in escrow: 10.00 USDC (not earned yet");
    expect(operatorPage).toContain("Held in escrow for Lens");
    expect(operatorPage).toContain(
      "10.00 USDC held in escrow, paid to your agent when the poster confirms the delivery.",
    );
    const posterPage = await myPage(poster);
    expect(posterPage).toContain("Held in escrow: 10.00 USDC (not spent yet");
    expect(posterPage).toContain(
      "10.00 USDC held in escrow, released to the agent when you confirm the delivery.",
    );
  });

  it("released on complete: earned after the platform's fee, spent with it, and it counts for reputation", async () => {
    const before = await balanceOf(agentWallet);
    expectStatus(await operator.post(`/api/v1/jobs/${jobs.held}/deliver`, {}), 200, "deliver");
    expectStatus(await poster.post(`/api/v1/jobs/${jobs.held}/complete`, {}), 200, "complete");
    // What the agent's payee received: the 10 USDC less 2.5%.
    expect(await balanceOf(agentWallet)).toBe(before + 9_750_000n);

    const mine = await earnings(operator);
    expect(mine.earned).toEqual({
      totalUsdc: 14.75,
      payments: 2,
      byAgent: [{ agentId: agent.id, agentName: "Lens", totalUsdc: 14.75, payments: 2 }],
      byMonth: [{ month: month(), totalUsdc: 14.75, payments: 2 }],
    });
    expect(mine.escrow.earned).toEqual({
      payments: 1,
      heldUsdc: 0,
      releasedUsdc: 9.75,
      feeUsdc: 0.25,
      refundedUsdc: 0,
    });
    expect(transactionOf(mine, jobs.held)!.escrow).toEqual({
      state: "released",
      heldUsdc: 0,
      releasedUsdc: 9.75,
      feeUsdc: 0.25,
      refundedUsdc: 0,
    });

    const theirs = await earnings(poster);
    expect(theirs.spent).toEqual({
      totalUsdc: 15,
      payments: 2,
      byMonth: [{ month: month(), totalUsdc: 15, payments: 2 }],
    });
    expect(theirs.escrow.spent).toEqual({
      payments: 1,
      heldUsdc: 0,
      releasedUsdc: 9.75,
      feeUsdc: 0.25,
      refundedUsdc: 0,
    });

    expect(await reputation()).toMatchObject({
      totalPaidUsdc: 15,
      paidByPosters: 1,
      reviewCount: 1,
      rating: 4,
      completedJobs: 1,
    });

    const operatorPage = await myPage(operator);
    expect(operatorPage).toContain("14.75 USDC in 2 payments");
    expect(operatorPage).toContain("Released from escrow: 9.75 USDC (counted in the total above");
    expect(operatorPage).toContain("Released to Lens");
    const posterPage = await myPage(poster);
    expect(posterPage).toContain("15.00 USDC in 2 payments");
    expect(posterPage).toContain(
      "Released to agents: 10.00 USDC (counted in the total above, with a platform fee of 0.25 USDC)",
    );
    expect(posterPage).toContain("Protected payment: 9.75 USDC released to the agent.");
  });

  it("refunded by an admin's dispute resolution: never earned nor spent, and no reputation", async () => {
    jobs.refunded = await protectedJob(otherPoster, 8);
    expectStatus(
      await otherPoster.post("/api/v1/reviews", {
        agentId: agent.id,
        jobId: jobs.refunded,
        rating: 1,
        comment: "nothing yet",
      }),
      201,
      "review",
    );
    await disputed(otherPoster, jobs.refunded);
    const resolved = expectStatus(
      await adminClient.post(`/api/v1/jobs/${jobs.refunded}/dispute/resolve`, {
        outcome: "refund",
        reason: "nothing was delivered",
      }),
      200,
      "resolve",
    );
    expect(resolved.data.status).toBe("cancelled");

    const mine = await earnings(operator);
    expect(mine.earned.totalUsdc).toBe(14.75);
    expect(mine.earned.payments).toBe(2);
    expect(mine.escrow.earned).toEqual({
      payments: 2,
      heldUsdc: 0,
      releasedUsdc: 9.75,
      feeUsdc: 0.25,
      refundedUsdc: 8,
    });
    expect(transactionOf(mine, jobs.refunded)).toMatchObject({
      mode: "escrow",
      escrow: { state: "refunded", heldUsdc: 0, releasedUsdc: 0, refundedUsdc: 8 },
    });

    const theirs = await earnings(otherPoster);
    expect(theirs.spent).toEqual({ totalUsdc: 0, payments: 0, byMonth: [] });
    expect(theirs.escrow.spent).toEqual({ ...noEscrow, payments: 1, refundedUsdc: 8 });

    // Neither the refunded payment nor the review on its job weighs.
    expect(await reputation()).toMatchObject({
      totalPaidUsdc: 15,
      paidByPosters: 1,
      reviewCount: 1,
      rating: 4,
      completedJobs: 1,
    });

    // A poster whose only job was refunded still sees where the money went.
    const posterPage = await myPage(otherPoster);
    expect(posterPage).toContain("Refunded to you: 8.00 USDC");
    expect(posterPage).toContain("Refunded to you for");
  });

  it("split by an admin: the agent's part is earned after the fee, the rest refunded", async () => {
    jobs.split = await protectedJob(otherPoster, 6);
    await disputed(otherPoster, jobs.split);
    expectStatus(
      await adminClient.post(`/api/v1/jobs/${jobs.split}/dispute/resolve`, {
        outcome: "split",
        agentUsdc: 2,
        reason: "half done",
      }),
      200,
      "resolve",
    );

    const mine = await earnings(operator);
    // 2 USDC to the agent less 2.5% (0.05).
    expect(mine.earned.totalUsdc).toBe(16.7);
    expect(mine.earned.payments).toBe(3);
    expect(mine.escrow.earned).toEqual({
      payments: 3,
      heldUsdc: 0,
      releasedUsdc: 11.7,
      feeUsdc: 0.3,
      refundedUsdc: 12,
    });
    expect(transactionOf(mine, jobs.split)!.escrow).toEqual({
      state: "split",
      heldUsdc: 0,
      releasedUsdc: 1.95,
      feeUsdc: 0.05,
      refundedUsdc: 4,
    });
    const theirs = await earnings(otherPoster);
    expect(theirs.spent).toMatchObject({ totalUsdc: 2, payments: 1 });
    expect(theirs.escrow.spent).toMatchObject({
      payments: 2,
      releasedUsdc: 1.95,
      refundedUsdc: 12,
    });

    // What the poster paid the agent counts: the 2 USDC captured, fee included.
    expect(await reputation()).toMatchObject({
      totalPaidUsdc: 17,
      paidByPosters: 2,
      completedJobs: 2,
    });
  });

  it("cancelled after the delivery deadline (the chain's clock moved): refunded, never earned", async () => {
    jobs.cancelled = await protectedJob(poster, 7);
    // eta 1 day + 1 hour's grace.
    await market.chain.increaseTime(86_400 + HOUR + 60);
    const cancelled = expectStatus(
      await poster.post(`/api/v1/jobs/${jobs.cancelled}/cancel`, {}),
      200,
      "cancel",
    );
    expect(cancelled.data.status).toBe("cancelled");

    const mine = await earnings(operator);
    expect(mine.earned.totalUsdc).toBe(16.7);
    expect(mine.escrow.earned).toMatchObject({ payments: 4, heldUsdc: 0, refundedUsdc: 19 });
    expect(transactionOf(mine, jobs.cancelled)!.escrow).toMatchObject({
      state: "refunded",
      refundedUsdc: 7,
    });
    const theirs = await earnings(poster);
    expect(theirs.spent.totalUsdc).toBe(15);
    expect(theirs.escrow.spent).toMatchObject({ payments: 2, heldUsdc: 0, refundedUsdc: 7 });
    expect(await reputation()).toMatchObject({
      totalPaidUsdc: 17,
      paidByPosters: 2,
      completedJobs: 2,
    });
  });
});
