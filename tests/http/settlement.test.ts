// Pay then accept, for real: `next start`, the local chain (Hardhat's node + our EIP-3009 token),
// the in-process facilitator, @x402/fetch and viem accounts.
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_ACCOUNTS,
  GANACHE_PRIVATE_KEYS,
  LOCAL_TOKEN_ADDRESS,
  LOCAL_TOKEN_EIP712_DOMAIN,
} from "@/dev/local-chain";
import { ApiClient, type ErrorBody } from "@/tests/helpers/api";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { DB_KINDS } from "@/tests/helpers/db";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { fetchChallenge, payingFetch, signPaymentHeader, tokenReader } from "@/tests/helpers/x402";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every chain here answers: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

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
    const registered = (
      await operator.post("/api/v1/agents", { name: "Payee", categories: ["data"] })
    ).body.data;
    // A new agent is paid at its operator's wallet (an EIP-55 address): no consent to wait for.
    if (!registered.walletAddress) throw new Error("the new agent has no payee wallet");
    const agent = { ...registered, walletAddress: registered.walletAddress as Address };
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
    expect(challenge.body).toEqual({ error: expect.any(String), code: "payment_required" });
    expect(challenge.paymentRequired.error).toBe("payment_required");
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
    async function expectRefused(
      header: string,
      settleUrl: string,
      payTo: string,
      reason: RegExp,
      code: string,
    ) {
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
      expect(body).toEqual({ error: expect.stringMatching(reason), code });
      // The fresh challenge carries the same code; nothing was attempted, so no PAYMENT-RESPONSE.
      expect(decodePaymentRequiredHeader(response.headers.get("payment-required")!).error).toBe(
        code,
      );
      expect(response.headers.get("payment-response")).toBeNull();
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
      // Another agent's job (another payee): the used authorization is named for what it is,
      // before its terms are compared (the same payee and price: the next test).
      const { paymentRequired } = await fetchChallenge(first.settleUrl);
      const header = await signPaymentHeader(posterAccount, paymentRequired);
      expect(
        (await fetch(first.settleUrl, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } }))
          .status,
      ).toBe(200);
      // Re-send the used signature to the second job: this authorization is spent.
      await expectRefused(
        header,
        second.settleUrl,
        second.agent.walletAddress,
        /already used for another payment/,
        "authorization_already_used",
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
        /already used for another payment/,
        "authorization_already_used",
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
      // Made for a 3 USDC bid to another agent: the amount check comes first.
      await expectRefused(
        header,
        settleUrl,
        agent.walletAddress,
        /wrong amount: .*exactly 12.5 USDC/,
        "invalid_exact_evm_payload_authorization_value_mismatch",
      );
    });

    it("a payer who is not the poster", async () => {
      const { agent, settleUrl } = await jobWithBid();
      const { paymentRequired } = await fetchChallenge(settleUrl);
      await expectRefused(
        await signPaymentHeader(strangerAccount, paymentRequired),
        settleUrl,
        agent.walletAddress,
        /wrong payer/,
        "wrong_payer",
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
      await expectRefused(
        cheap,
        settleUrl,
        agent.walletAddress,
        /invalid signature/,
        "invalid_exact_evm_payload_signature",
      );
      // Signed to pay the poster's friend, sent naming the agent.
      const redirected = await signPaymentHeader(posterAccount, paymentRequired, {
        signed: { to: strangerAccount.address },
        sent: { to: agent.walletAddress },
      });
      await expectRefused(
        redirected,
        settleUrl,
        agent.walletAddress,
        /invalid signature/,
        "invalid_exact_evm_payload_signature",
      );
      // Honest signature for a lower amount.
      const lower = await signPaymentHeader(posterAccount, paymentRequired, {
        signed: { value: "1" },
        accepted: { amount: "1" },
      });
      await expectRefused(
        lower,
        settleUrl,
        agent.walletAddress,
        /wrong amount/,
        "invalid_exact_evm_payload_authorization_value_mismatch",
      );
      const elsewhere = await signPaymentHeader(posterAccount, paymentRequired, {
        signed: { to: strangerAccount.address },
        accepted: { payTo: strangerAccount.address },
      });
      await expectRefused(
        elsewhere,
        settleUrl,
        agent.walletAddress,
        /wrong payee/,
        "invalid_exact_evm_payload_recipient_mismatch",
      );
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
        "invalid_exact_evm_payload_authorization_valid_before",
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
        "insufficient_funds",
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

  it("answers the same signature again with the recorded result (a lost response's retry)", async () => {
    const { job, bid, agent, settleUrl } = await jobWithBid();
    const { paymentRequired } = await fetchChallenge(settleUrl);
    const header = await signPaymentHeader(posterAccount, paymentRequired);
    const send = () =>
      fetch(settleUrl, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } });
    const first = await send();
    const firstBody = await first.text();
    expect(first.status).toBe(200);
    const again = await send();
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstBody);
    expect(again.headers.get("payment-response")).toBe(first.headers.get("payment-response"));
    // Still the same after the job moved on.
    const { txHash } = JSON.parse(firstBody).data;
    expect(
      (await poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: bid.id, txHash })).status,
    ).toBe(200);
    const later = await send();
    expect(later.status).toBe(200);
    expect(await later.text()).toBe(firstBody);
    expect(await token.transfersTo(agent.walletAddress)).toBe(1);
  });

  it("tells a second job its payment was never made when one signature races to both", async () => {
    // Same payee and price on both jobs, so the one authorization verifies for either.
    const first = await jobWithBid();
    const job = (
      await poster.post("/api/v1/jobs", {
        title: "Twin",
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
    const secondUrl = `${server.url}/api/jobs/${job.id}/settle?proposalId=${bid.id}`;
    const { paymentRequired } = await fetchChallenge(first.settleUrl);
    const header = await signPaymentHeader(posterAccount, paymentRequired);
    const [a, b] = await Promise.all(
      [first.settleUrl, secondUrl].map(async (url) => {
        const response = await fetch(url, {
          method: "POST",
          headers: { "PAYMENT-SIGNATURE": header },
        });
        return { url, status: response.status, body: await response.json() };
      }),
    );
    const winner = [a!, b!].find((r) => r.status === 200);
    const loser = [a!, b!].find((r) => r.status !== 200);
    expect(winner, JSON.stringify([a, b])).toBeDefined();
    expect(loser!.status, JSON.stringify(loser)).toBe(402);
    expect(loser!.body.code).toBe("authorization_already_used");
    expect(await token.transfersTo(first.agent.walletAddress)).toBe(1);
    // The losing job was never paid: its slot is free and a new signature pays it.
    const loserJob = loser!.url === secondUrl ? job.id : first.job.id;
    expect((await poster.get(`/api/v1/jobs/${loserJob}/payment`)).body.data).toBeNull();
    const retry = await payingFetch(posterAccount)(loser!.url, { method: "POST" });
    expect(retry.status).toBe(200);
    expect(await token.transfersTo(first.agent.walletAddress)).toBe(2);
  });

  it("reports the job's payment: null, then succeeded with its hash", async () => {
    const { job, bid, agent, settleUrl } = await jobWithBid();
    expect(await poster.get(`/api/v1/jobs/${job.id}/payment`)).toMatchObject({
      status: 200,
      body: { data: null },
    });
    expect((await poster.get(`/api/v1/jobs/job_nope/payment`)).status).toBe(404);
    const response = await payingFetch(posterAccount)(settleUrl, { method: "POST" });
    const { txHash } = (await response.json()).data;
    expect((await poster.get(`/api/v1/jobs/${job.id}/payment`)).body.data).toEqual({
      // Pay-now: the agent was paid at once, nothing is held (protected payments: mode escrow).
      mode: "now",
      escrow: null,
      status: "succeeded",
      txHash,
      network: "eip155:31337",
      payer: posterAccount.address,
      payTo: agent.walletAddress,
      amountUsdc: BID,
      proposalId: bid.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it("refuses to reject a paid proposal (409) and accepts it afterwards", async () => {
    const { job, bid, settleUrl } = await jobWithBid();
    const response = await payingFetch(posterAccount)(settleUrl, { method: "POST" });
    const { txHash } = (await response.json()).data;
    const reject = await poster.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`);
    expect(reject.status).toBe(409);
    expect(reject.body.error).toMatch(/this proposal is paid/);
    expect(
      (await poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: bid.id, txHash })).status,
    ).toBe(200);
  });

  describe("every malformed PAYMENT-SIGNATURE is 400 invalid_payload, never a 500", () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
    const cases: [string, (valid: any) => string][] = [
      ["not base64 at all", () => "%%%not-base64%%%"],
      ["base64 of text that is not JSON", () => Buffer.from("hello").toString("base64")],
      ["base64 of JSON null", () => b64(null)],
      ["base64 of a JSON array", () => b64([1, 2])],
      ["no accepted requirements", (v) => b64({ ...v, accepted: undefined })],
      ["no payload", (v) => b64({ ...v, payload: undefined })],
      [
        "a payload without an authorization",
        (v) => b64({ ...v, payload: { signature: v.payload.signature } }),
      ],
      [
        "a payload without a signature",
        (v) => b64({ ...v, payload: { authorization: v.payload.authorization } }),
      ],
      ["a numeric signature", (v) => b64({ ...v, payload: { ...v.payload, signature: 12345 } })],
      [
        "a signature that is not hex",
        (v) => b64({ ...v, payload: { ...v.payload, signature: "0xzz" } }),
      ],
      [
        "a signature of half a byte",
        (v) => b64({ ...v, payload: { ...v.payload, signature: `${v.payload.signature}0` } }),
      ],
      [
        "a null authorization",
        (v) => b64({ ...v, payload: { ...v.payload, authorization: null } }),
      ],
      [
        "an authorization missing its nonce",
        (v) =>
          b64({
            ...v,
            payload: {
              ...v.payload,
              authorization: { ...v.payload.authorization, nonce: undefined },
            },
          }),
      ],
      [
        "a nonce of the wrong length",
        (v) =>
          b64({
            ...v,
            payload: {
              ...v.payload,
              authorization: { ...v.payload.authorization, nonce: "0x1234" },
            },
          }),
      ],
      [
        "a value that is not a decimal string",
        (v) =>
          b64({
            ...v,
            payload: {
              ...v.payload,
              authorization: { ...v.payload.authorization, value: 12500000 },
            },
          }),
      ],
      [
        "a negative validBefore",
        (v) =>
          b64({
            ...v,
            payload: {
              ...v.payload,
              authorization: { ...v.payload.authorization, validBefore: "-1" },
            },
          }),
      ],
      [
        "a from that is not an address",
        (v) =>
          b64({
            ...v,
            payload: { ...v.payload, authorization: { ...v.payload.authorization, from: "0x12" } },
          }),
      ],
      ["12 KiB of base64 junk", () => "A".repeat(12 * 1024)],
    ];
    let settleUrl: string;
    let valid: any;
    beforeAll(async () => {
      ({ settleUrl } = await jobWithBid());
      const { paymentRequired } = await fetchChallenge(settleUrl);
      valid = JSON.parse(
        Buffer.from(await signPaymentHeader(posterAccount, paymentRequired), "base64").toString(),
      );
    });
    it.each(cases)("%s", async (_name, build) => {
      const response = await fetch(settleUrl, {
        method: "POST",
        headers: { "PAYMENT-SIGNATURE": build(valid) },
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: expect.stringMatching(/PAYMENT-SIGNATURE header is not a valid x402 payment/),
        code: "invalid_payload",
      });
    });
    it("a well-formed payment of x402 version 1 is a 402 the client can act on", async () => {
      const response = await fetch(settleUrl, {
        method: "POST",
        headers: { "PAYMENT-SIGNATURE": b64({ ...valid, x402Version: 1 }) },
      });
      expect(response.status).toBe(402);
      expect((await response.json()).code).toBe("invalid_x402_version");
    });
  });

  describe("every refusal before a transfer has its code", () => {
    type Tamper = (now: number) => {
      signed?: Record<string, string>;
      accepted?: Record<string, string>;
    };
    const cases: [string, Tamper, string][] = [
      [
        "a validAfter in the future",
        (now) => ({ signed: { validAfter: String(now + 3600) } }),
        "invalid_exact_evm_payload_authorization_valid_after",
      ],
      [
        "a validity longer than the challenge allows",
        (now) => ({ signed: { validBefore: String(now + 3600) } }),
        "invalid_exact_evm_payload_authorization_valid_before",
      ],
      ["another scheme", () => ({ accepted: { scheme: "upto" } }), "invalid_scheme"],
      ["another network", () => ({ accepted: { network: "eip155:8453" } }), "invalid_network"],
      [
        "another asset",
        () => ({ accepted: { asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" } }),
        "wrong_asset",
      ],
    ];
    it.each(cases)("%s", async (_name, tamper, code) => {
      const { agent, settleUrl } = await jobWithBid();
      const { paymentRequired } = await fetchChallenge(settleUrl);
      const header = await signPaymentHeader(
        posterAccount,
        paymentRequired,
        tamper(Math.floor(Date.now() / 1000)),
      );
      const before = await token.balanceOf(posterAccount.address);
      const response = await fetch(settleUrl, {
        method: "POST",
        headers: { "PAYMENT-SIGNATURE": header },
      });
      expect(response.status).toBe(402);
      expect((await response.json()).code).toBe(code);
      expect(await token.balanceOf(posterAccount.address)).toBe(before);
      expect(await token.transfersTo(agent.walletAddress)).toBe(0);
    });
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

  it("mints test USDC on the local chain: 250, and exactly the 10,000 maximum", async () => {
    const client = new ApiClient(server.url);
    for (const amountUsdc of [250, 10_000]) {
      const address = privateKeyToAccount(generatePrivateKey()).address;
      const response = await client.post("/api/dev/faucet", { address, amountUsdc });
      expect(response.status).toBe(200);
      // The faucet is a development endpoint, outside the API document.
      expect((response.body as { data: { txHash: string } }).data.txHash).toMatch(
        /^0x[0-9a-f]{64}$/,
      );
      expect(await tokenReader(chain.rpcUrl).balanceOf(address)).toBe(
        BigInt(amountUsdc) * 1_000_000n,
      );
    }
  });

  it.each([
    ["0", 0, "amountUsdc must be greater than 0"],
    ["a negative amount", -1, "amountUsdc must be greater than 0"],
    ["7 decimals", 1.0000001, "amountUsdc must have at most 6 decimal places"],
    ["one atomic unit over 10,000", 10_000.000001, "amountUsdc must be at most 10000"],
    ["a string", "5", "amountUsdc must be a number"],
  ])("refuses %s (400) and mints nothing", async (_name, amountUsdc, error) => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const response = await new ApiClient(server.url).post("/api/dev/faucet", {
      address,
      amountUsdc,
    });
    expect(response.status).toBe(400);
    expect((response.body as ErrorBody).error).toContain(error);
    expect(await tokenReader(chain.rpcUrl).balanceOf(address)).toBe(0n);
  });

  it("refuses an address that is not one (400)", async () => {
    const response = await new ApiClient(server.url).post("/api/dev/faucet", {
      address: "0x12",
      amountUsdc: 1,
    });
    expect(response.status).toBe(400);
  });

  it("answers 503 with a readable error when the local chain is down", async () => {
    const ownChain = await startTestChain();
    const database = await prepareServerDatabase("pglite");
    const down = await startServer({ ...database.env, CHAIN_RPC_URL: ownChain.rpcUrl });
    try {
      await ownChain.stop();
      const response = await new ApiClient(down.url).post("/api/dev/faucet", {
        address: privateKeyToAccount(generatePrivateKey()).address,
        amountUsdc: 1,
      });
      expect(response.status).toBe(503);
      expect((response.body as ErrorBody).error).toMatch(/npm run chain/);
    } finally {
      await down.stop();
      await database.cleanup();
    }
  });

  it("does not exist on Base (404)", async () => {
    // A stand-in for Base's JSON-RPC (chain id 8453) so that the server's start-up checks pass.
    const baseRpc = await startTestChain({ chainId: 8453 });
    const database = await prepareServerDatabase("pglite");
    try {
      const base = await startServer({
        ...database.env,
        SETTLEMENT_NETWORK: "base",
        BASE_RPC_URL: baseRpc.rpcUrl,
        FACILITATOR_PRIVATE_KEY: generatePrivateKey(),
      });
      try {
        const response = await new ApiClient(base.url).post("/api/dev/faucet", {
          address: privateKeyToAccount(generatePrivateKey()).address,
          amountUsdc: 1,
        });
        expect(response.status).toBe(404);
      } finally {
        await base.stop();
      }
    } finally {
      await baseRpc.stop();
      await database.cleanup();
    }
  });
});

describe("production start refuses what would lose money", () => {
  let chain: TestChain;
  let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
  beforeAll(async () => {
    chain = await startTestChain();
    database = await prepareServerDatabase("pglite");
  });
  afterAll(async () => {
    await chain?.stop();
    await database?.cleanup();
  });

  it.each([
    [
      "no explicit SETTLEMENT_NETWORK",
      { SETTLEMENT_NETWORK: "" },
      /SETTLEMENT_NETWORK must be set explicitly in production/,
    ],
    [
      "a facilitator secret sent over plain http beyond loopback",
      { X402_FACILITATOR_URL: "http://10.0.0.1:4021", FACILITATOR_SECRET: "s".repeat(40) },
      /X402_FACILITATOR_URL must be https:\/\/ beyond loopback/,
    ],
    [
      "benchmark mode on",
      { BENCHMARK_MODE: "true" },
      /BENCHMARK_MODE=true is a test switch, refused in production/,
    ],
    [
      "Base with ganache's public key",
      {
        SETTLEMENT_NETWORK: "base",
        FACILITATOR_PRIVATE_KEY: GANACHE_PRIVATE_KEYS[1],
        BASE_RPC_URL: "http://127.0.0.1:9",
      },
      /ganache's public test keys/,
    ],
    [
      "an RPC that is another chain",
      { SETTLEMENT_NETWORK: "base", BASE_RPC_URL: "RPC", FACILITATOR_PRIVATE_KEY: "KEY" },
      /is chain 31337, but eip155:8453 is configured/,
    ],
    [
      "a facilitator that does not answer",
      { X402_FACILITATOR_URL: "http://127.0.0.1:9" },
      /settlement network is not usable/,
    ],
  ] as const)("%s", async (_name, env, message) => {
    const resolved = Object.fromEntries(
      Object.entries(env).map(([key, value]) => [
        key,
        value === "RPC" ? chain.rpcUrl : value === "KEY" ? generatePrivateKey() : value,
      ]),
    );
    await expect(
      startServer({ ...database.env, CHAIN_RPC_URL: chain.rpcUrl, ...resolved }),
    ).rejects.toThrow(message);
  });
});
