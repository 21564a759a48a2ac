// Pay then accept, for real: `next start`, the local chain (ganache + our EIP-3009 token),
// the in-process facilitator, @x402/fetch and viem accounts.
import { decodePaymentResponseHeader } from "@x402/core/http";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_ACCOUNTS,
  LOCAL_TOKEN_ADDRESS,
  LOCAL_TOKEN_EIP712_DOMAIN,
} from "@/lib/payments/local-chain";
import { ApiClient } from "@/tests/helpers/api";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { DB_KINDS } from "@/tests/helpers/db";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { fetchChallenge, payingFetch, signPaymentHeader, tokenReader } from "@/tests/helpers/x402";

const posterAccount = privateKeyToAccount(DEMO_ACCOUNTS[0]!.privateKey);
const strangerAccount = privateKeyToAccount(DEMO_ACCOUNTS[1]!.privateKey);
const BID = 12.5;
const BID_ATOMIC = 12_500_000n;

describe.each(DB_KINDS)("x402 settlement on %s", (kind) => {
  let chain: TestChain;
  let server: RunningServer;
  let cleanup: () => Promise<void>;
  let poster: ApiClient;
  let token: ReturnType<typeof tokenReader>;
  const extraServers: RunningServer[] = [];

  beforeAll(async () => {
    chain = await startTestChain();
    token = tokenReader(chain.rpcUrl);
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    server = await startServer({
      ...database.env,
      CHAIN_RPC_URL: chain.rpcUrl,
      SETTLEMENT_RECONCILE_AFTER_SECONDS: "0",
      RATE_LIMIT_WRITES_PER_MINUTE: "100000",
      RATE_LIMIT_AUTH_PER_MINUTE: "100000",
    });
    poster = await new ApiClient(server.url, posterAccount).signIn();
  });

  afterAll(async () => {
    for (const extra of extraServers) await extra.stop();
    await server?.stop();
    await chain?.stop();
    await cleanup?.();
  });

  /** A job (by the poster unless told) with one bid of BID from a fresh agent whose payee wallet starts empty. */
  async function jobWithBid(postedBy: ApiClient = poster) {
    const operator = await new ApiClient(
      server.url,
      privateKeyToAccount(generatePrivateKey()),
    ).signIn();
    const agent = (await operator.post("/api/v1/agents", { name: "Payee", categories: ["data"] }))
      .body.data;
    const job = (
      await postedBy.post("/api/v1/jobs", {
        title: "Pay me",
        description: "d",
        category: "data",
        budgetUsdc: 50,
        timelineDays: 2,
      })
    ).body.data;
    const bid = (
      await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId: agent.id,
        bidUsdc: BID,
        etaDays: 1,
        message: "bid",
      })
    ).body.data;
    return {
      job,
      bid,
      agent,
      operator,
      settleUrl: `${server.url}/api/jobs/${job.id}/settle?proposalId=${bid.id}`,
    };
  }

  it("challenges with 402 and the exact x402 v2 requirements from the database", async () => {
    const { job, bid, agent, settleUrl } = await jobWithBid();
    const challenge = await fetchChallenge(settleUrl);
    expect(challenge.status).toBe(402);
    expect(challenge.body).toEqual({ error: expect.any(String) });
    expect(challenge.paymentRequired).toMatchObject({
      x402Version: 2,
      resource: { url: settleUrl },
      accepts: [
        {
          scheme: "exact",
          network: "eip155:31337",
          amount: "12500000",
          asset: LOCAL_TOKEN_ADDRESS,
          payTo: agent.walletAddress,
          maxTimeoutSeconds: expect.any(Number),
          extra: {
            name: LOCAL_TOKEN_EIP712_DOMAIN.name,
            version: LOCAL_TOKEN_EIP712_DOMAIN.version,
          },
        },
      ],
    });
    // The client cannot change price or payee through the URL.
    const tampered = await fetchChallenge(`${settleUrl}&amount=1&payTo=${posterAccount.address}`);
    expect(tampered.paymentRequired.accepts[0]).toMatchObject({
      amount: "12500000",
      payTo: agent.walletAddress,
    });
    expect(
      (await fetch(`${server.url}/api/jobs/${job.id}/settle`, { method: "POST" })).status,
    ).toBe(400);
    expect(
      (
        await fetch(`${server.url}/api/jobs/job_nope/settle?proposalId=${bid.id}`, {
          method: "POST",
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await fetch(`${server.url}/api/jobs/${job.id}/settle?proposalId=prop_nope`, {
          method: "POST",
        })
      ).status,
    ).toBe(404);
  });

  it("pays, moves exactly the bid, then accepts, delivers and completes", async () => {
    const { job, bid, agent, operator, settleUrl } = await jobWithBid();
    const [posterBefore, agentBefore] = await Promise.all([
      token.balanceOf(posterAccount.address),
      token.balanceOf(agent.walletAddress),
    ]);
    const response = await payingFetch(posterAccount)(settleUrl, { method: "POST" });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.data).toEqual({
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      network: "eip155:31337",
      payer: posterAccount.address,
      payTo: agent.walletAddress,
      amountUsdc: BID,
      jobId: job.id,
      proposalId: bid.id,
    });
    const paymentResponse = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(paymentResponse).toMatchObject({
      success: true,
      transaction: body.data.txHash,
      payer: posterAccount.address,
    });
    expect(await token.balanceOf(agent.walletAddress)).toBe(agentBefore + BID_ATOMIC);
    expect(await token.balanceOf(posterAccount.address)).toBe(posterBefore - BID_ATOMIC);

    // Paid: the slot is taken, a second payment is refused before any signing.
    const again = await fetchChallenge(settleUrl);
    expect(again.status).toBe(409);
    expect(again.body.error).toContain(body.data.txHash);

    const accepted = await poster.post(`/api/v1/jobs/${job.id}/accept`, {
      proposalId: bid.id,
      txHash: body.data.txHash,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({
      status: "in_progress",
      paymentTxHash: body.data.txHash,
      assignedAgentId: agent.id,
    });
    expect((await operator.post(`/api/v1/jobs/${job.id}/deliver`)).status).toBe(200);
    const completed = await poster.post(`/api/v1/jobs/${job.id}/complete`, {
      rating: 5,
      comment: "paid and done",
    });
    expect(completed.status).toBe(200);
    expect(completed.body.data.status).toBe("completed");
    expect((await fetchChallenge(settleUrl)).status).toBe(409);
  });

  describe("refused payments leave every balance unchanged", () => {
    async function expectRefused(header: string, settleUrl: string, payTo: string, reason: RegExp) {
      const before = await Promise.all([
        token.balanceOf(posterAccount.address),
        token.balanceOf(strangerAccount.address),
        token.balanceOf(payTo),
      ]);
      const response = await fetch(settleUrl, {
        method: "POST",
        headers: { "PAYMENT-SIGNATURE": header },
      });
      const body = await response.json();
      expect(response.status).toBe(402);
      expect(body.error).toMatch(reason);
      expect(response.headers.get("payment-required")).toBeTruthy();
      const after = await Promise.all([
        token.balanceOf(posterAccount.address),
        token.balanceOf(strangerAccount.address),
        token.balanceOf(payTo),
      ]);
      expect(after).toEqual(before);
    }

    it("a used signature sent to another job", async () => {
      const first = await jobWithBid();
      const second = await jobWithBid();
      // The same agent wallet and amount on both jobs, so only the replay differs.
      const { paymentRequired } = await fetchChallenge(first.settleUrl);
      const header = await signPaymentHeader(posterAccount, paymentRequired);
      expect(
        (await fetch(first.settleUrl, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } }))
          .status,
      ).toBe(200);
      // Re-send the used signature to the second job, whose payee differs: refused either way.
      await expectRefused(
        header,
        second.settleUrl,
        second.agent.walletAddress,
        /wrong payee|replayed/,
      );
    });

    it("a replayed signature on a job with the same payee and price", async () => {
      const first = await jobWithBid();
      const job = (
        await poster.post("/api/v1/jobs", {
          title: "Again",
          description: "d",
          category: "data",
          budgetUsdc: 50,
          timelineDays: 2,
        })
      ).body.data;
      const bid = (
        await first.operator.post(`/api/v1/jobs/${job.id}/proposals`, {
          agentId: first.agent.id,
          bidUsdc: BID,
          etaDays: 1,
          message: "bid",
        })
      ).body.data;
      const { paymentRequired } = await fetchChallenge(first.settleUrl);
      const header = await signPaymentHeader(posterAccount, paymentRequired);
      expect(
        (await fetch(first.settleUrl, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } }))
          .status,
      ).toBe(200);
      await expectRefused(
        header,
        `${server.url}/api/jobs/${job.id}/settle?proposalId=${bid.id}`,
        first.agent.walletAddress,
        /replayed/,
      );
    });

    it("a signature made for another proposal", async () => {
      const { job, agent, settleUrl } = await jobWithBid();
      const operator = await new ApiClient(
        server.url,
        privateKeyToAccount(generatePrivateKey()),
      ).signIn();
      const otherAgent = (
        await operator.post("/api/v1/agents", { name: "Other", categories: ["data"] })
      ).body.data;
      const other = (
        await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
          agentId: otherAgent.id,
          bidUsdc: 3,
          etaDays: 1,
          message: "cheap",
        })
      ).body.data;
      const { paymentRequired } = await fetchChallenge(
        `${server.url}/api/jobs/${job.id}/settle?proposalId=${other.id}`,
      );
      const header = await signPaymentHeader(posterAccount, paymentRequired);
      await expectRefused(header, settleUrl, agent.walletAddress, /wrong amount|wrong payee/);
    });

    it("a payer who is not the poster", async () => {
      const { agent, settleUrl } = await jobWithBid();
      const { paymentRequired } = await fetchChallenge(settleUrl);
      await expectRefused(
        await signPaymentHeader(strangerAccount, paymentRequired),
        settleUrl,
        agent.walletAddress,
        /wrong payer/,
      );
    });

    it("an amount or payee tampered in the payload", async () => {
      const { agent, settleUrl } = await jobWithBid();
      const { paymentRequired } = await fetchChallenge(settleUrl);
      // Signed for 1 atomic unit, sent as if for the full bid: the signature gives it away.
      const cheap = await signPaymentHeader(posterAccount, paymentRequired, {
        signed: { value: "1" },
        sent: { value: "12500000" },
      });
      await expectRefused(cheap, settleUrl, agent.walletAddress, /invalid signature/);
      // Signed to pay the poster's friend, sent naming the agent.
      const redirected = await signPaymentHeader(posterAccount, paymentRequired, {
        signed: { to: strangerAccount.address },
        sent: { to: agent.walletAddress },
      });
      await expectRefused(redirected, settleUrl, agent.walletAddress, /invalid signature/);
      // Honest signature for a lower amount.
      const lower = await signPaymentHeader(posterAccount, paymentRequired, {
        signed: { value: "1" },
        accepted: { amount: "1" },
      });
      await expectRefused(lower, settleUrl, agent.walletAddress, /wrong amount/);
      const elsewhere = await signPaymentHeader(posterAccount, paymentRequired, {
        signed: { to: strangerAccount.address },
        accepted: { payTo: strangerAccount.address },
      });
      await expectRefused(elsewhere, settleUrl, agent.walletAddress, /wrong payee/);
    });

    it("an expired authorization", async () => {
      const { agent, settleUrl } = await jobWithBid();
      const { paymentRequired } = await fetchChallenge(settleUrl);
      const past = String(Math.floor(Date.now() / 1000) - 10);
      await expectRefused(
        await signPaymentHeader(posterAccount, paymentRequired, { signed: { validBefore: past } }),
        settleUrl,
        agent.walletAddress,
        /expired/,
      );
    });

    it("a payer without funds", async () => {
      const broke = privateKeyToAccount(generatePrivateKey());
      const brokePoster = await new ApiClient(server.url, broke).signIn();
      const { agent, settleUrl } = await jobWithBid(brokePoster);
      const { paymentRequired } = await fetchChallenge(settleUrl);
      await expectRefused(
        await signPaymentHeader(broke, paymentRequired),
        settleUrl,
        agent.walletAddress,
        /insufficient balance/,
      );
      // Nothing was claimed: the job can still be paid by a funded poster later.
      expect((await fetchChallenge(settleUrl)).status).toBe(402);
    });

    it("a job that is not open, and accept with hashes that are not this job's (402)", async () => {
      const paid = await jobWithBid();
      const response = await payingFetch(posterAccount)(paid.settleUrl, { method: "POST" });
      const { txHash } = (await response.json()).data;
      const other = await jobWithBid();
      expect(
        (
          await poster.post(`/api/v1/jobs/${other.job.id}/accept`, {
            proposalId: other.bid.id,
            txHash,
          })
        ).status,
      ).toBe(402);
      const unknown = `0x${"ab".repeat(32)}`;
      expect(
        (
          await poster.post(`/api/v1/jobs/${other.job.id}/accept`, {
            proposalId: other.bid.id,
            txHash: unknown,
          })
        ).status,
      ).toBe(402);
      expect(
        (
          await poster.post(`/api/v1/jobs/${paid.job.id}/accept`, {
            proposalId: paid.bid.id,
            txHash,
          })
        ).status,
      ).toBe(200);
      const notOpen = await fetchChallenge(paid.settleUrl);
      expect(notOpen.status).toBe(409);
    });
  });

  it("settles exactly once under 10 concurrent payments with different valid signatures", async () => {
    const { agent, settleUrl } = await jobWithBid();
    const { paymentRequired } = await fetchChallenge(settleUrl);
    const headers = await Promise.all(
      Array.from({ length: 10 }, () => signPaymentHeader(posterAccount, paymentRequired)),
    );
    const before = await token.balanceOf(agent.walletAddress);
    const statuses = await Promise.all(
      headers.map(
        async (header) =>
          (await fetch(settleUrl, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } }))
            .status,
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(9);
    expect(await token.balanceOf(agent.walletAddress)).toBe(before + BID_ATOMIC);
    expect(await token.transfersTo(agent.walletAddress)).toBe(1);
  });

  // Only PostgreSQL can be shared by two server processes (PGlite belongs to one).
  const onPostgres = kind === "postgres" ? it : () => {};
  onPostgres("settles exactly once across two server processes sharing PostgreSQL", async () => {
    const second = await startServer(server.env);
    extraServers.push(second);
    const { job, bid, agent } = await jobWithBid();
    const path = `/api/jobs/${job.id}/settle?proposalId=${bid.id}`;
    const { paymentRequired } = await fetchChallenge(server.url + path);
    const headers = await Promise.all(
      Array.from({ length: 10 }, () => signPaymentHeader(posterAccount, paymentRequired)),
    );
    const statuses = await Promise.all(
      headers.map(
        async (header, index) =>
          (
            await fetch((index % 2 ? second.url : server.url) + path, {
              method: "POST",
              headers: { "PAYMENT-SIGNATURE": header },
            })
          ).status,
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(9);
    expect(await token.transfersTo(agent.walletAddress)).toBe(1);
  });

  it("recovers a settlement cut short by a crash and never takes a second payment", async () => {
    const { job, bid, agent, settleUrl } = await jobWithBid();
    // A server that dies right after the on-chain transfer, before recording the hash.
    await server.stop();
    const crashing = await startServer({
      ...server.env,
      ENABLE_TEST_HOOKS: "true",
      TEST_CRASH_AFTER_SETTLE: "true",
    });
    const crashUrl = settleUrl.replace(server.url, crashing.url);
    const { paymentRequired } = await fetchChallenge(crashUrl);
    const header = await signPaymentHeader(posterAccount, paymentRequired);
    await expect(
      fetch(crashUrl, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } }),
    ).rejects.toThrow();
    await crashing.stop();
    expect(await token.transfersTo(agent.walletAddress)).toBe(1);
    const [paidTx] = await token
      .authorizationTx(posterAccount.address)
      .then((hashes) => hashes.slice(-1));

    server = await startServer(server.env);
    poster = await new ApiClient(server.url, posterAccount).signIn();
    const url = `${server.url}/api/jobs/${job.id}/settle?proposalId=${bid.id}`;
    // A new, valid payment for the same job is refused: the crashed one is found on chain.
    const retry = await fetch(url, {
      method: "POST",
      headers: { "PAYMENT-SIGNATURE": await signPaymentHeader(posterAccount, paymentRequired) },
    });
    expect(retry.status).toBe(409);
    expect((await retry.json()).error).toContain(paidTx);
    expect(await token.transfersTo(agent.walletAddress)).toBe(1);
    const accepted = await poster.post(`/api/v1/jobs/${job.id}/accept`, {
      proposalId: bid.id,
      txHash: paidTx,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.paymentTxHash).toBe(paidTx);
  });
});

describe("the dev faucet", () => {
  let chain: TestChain;
  let server: RunningServer;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    chain = await startTestChain();
    const database = await prepareServerDatabase("pglite");
    cleanup = database.cleanup;
    server = await startServer({ ...database.env, CHAIN_RPC_URL: chain.rpcUrl });
  });
  afterAll(async () => {
    await server?.stop();
    await chain?.stop();
    await cleanup?.();
  });

  it("mints test USDC on the local chain, at most 10,000 per call", async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const client = new ApiClient(server.url);
    const response = await client.post("/api/dev/faucet", { address, amountUsdc: 250 });
    expect(response.status).toBe(200);
    expect(response.body.data.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await tokenReader(chain.rpcUrl).balanceOf(address)).toBe(250_000_000n);
    expect((await client.post("/api/dev/faucet", { address, amountUsdc: 10_001 })).status).toBe(
      400,
    );
    expect((await client.post("/api/dev/faucet", { address: "0x12", amountUsdc: 1 })).status).toBe(
      400,
    );
  });

  it("answers 503 with a readable error when the local chain is down", async () => {
    const database = await prepareServerDatabase("pglite");
    const down = await startServer({ ...database.env, CHAIN_RPC_URL: "http://127.0.0.1:9" });
    try {
      const response = await new ApiClient(down.url).post("/api/dev/faucet", {
        address: privateKeyToAccount(generatePrivateKey()).address,
        amountUsdc: 1,
      });
      expect(response.status).toBe(503);
      expect(response.body.error).toMatch(/npm run chain/);
    } finally {
      await down.stop();
      await database.cleanup();
    }
  });

  it("does not exist on Base (404)", async () => {
    const database = await prepareServerDatabase("pglite");
    const base = await startServer({
      ...database.env,
      SETTLEMENT_NETWORK: "base",
      X402_FACILITATOR_URL: "http://127.0.0.1:9",
    });
    try {
      const response = await new ApiClient(base.url).post("/api/dev/faucet", {
        address: privateKeyToAccount(generatePrivateKey()).address,
        amountUsdc: 1,
      });
      expect(response.status).toBe(404);
    } finally {
      await base.stop();
      await database.cleanup();
    }
  });
});
