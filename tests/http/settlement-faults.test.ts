// Money under faults: `next start` and the local chain, with faults injected where they happen
// in production: the chain stalls (mining paused) or forgets a transaction (a snapshot
// reverted), the RPC answers slowly, cuts or fails responses (a loopback proxy between server
// and chain), the client loses its response, a reject races the payment, and the server is
// killed at each step of a settlement. Every case ends with the invariant checked on chain and
// through the API: the poster paid exactly once or not at all, by exactly the bid, to exactly
// the agent, and the record says which.
import { decodePaymentResponseHeader } from "@x402/core/http";
import { createWalletClient, http } from "viem";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import {
  startFacilitatorProcess,
  TEST_FACILITATOR_SECRET,
  type FacilitatorProcess,
} from "@/tests/helpers/facilitator";
import { FaultProxy, path, rpc } from "@/tests/helpers/fault-proxy";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { newPaymentCase, type PaymentCase } from "@/tests/helpers/market";
import { type ProxiedChainServer, startProxiedChainServer } from "@/tests/helpers/proxied-chain";
import { localChain, LOCAL_TOKEN_ADDRESS } from "@/dev/local-chain";
import { usdcAbi } from "@/lib/payments/chain/usdc-abi";
import { expectPaidOnceOrNotAtAll, snapshotMoney, tokenOn } from "@/tests/helpers/money";
import { closeTableForWrites } from "@/tests/helpers/pg-gate";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { fetchChallenge, payingFetch, signPaymentHeader } from "@/tests/helpers/x402";
import { failOnServerErrors } from "@/tests/helpers/server-logs";

failOnServerErrors();

const KIND = TEST_DATABASE_URL ? "postgres" : "pglite";

/** Production's reconciler, only faster: a short real delay (never zero) and a quick tick. */
const FAST_RECOVERY = {
  SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "2",
  SETTLEMENT_RECONCILE_AFTER_SECONDS: "4",
  SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
  RATE_LIMIT_WRITES_PER_MINUTE: "100000",
  RATE_LIMIT_AUTH_PER_MINUTE: "100000",
};

async function signedHeader(market: { server: RunningServer }, c: PaymentCase) {
  const { paymentRequired } = await fetchChallenge(c.settleUrl(market.server.url));
  return signPaymentHeader(c.payer, paymentRequired);
}

const send = (url: string, header: string, signal?: AbortSignal) =>
  fetch(url, { method: "POST", headers: { "PAYMENT-SIGNATURE": header }, signal });

describe("settling when the chain stalls or the RPC misbehaves", () => {
  let started: ProxiedChainServer;
  let chain: TestChain;
  let proxy: FaultProxy;
  let server: RunningServer;

  beforeAll(async () => {
    started = await startProxiedChainServer(KIND, FAST_RECOVERY);
    ({ chain, proxy, server } = started);
  });

  afterAll(() => started?.stop());

  const market = () => ({ chain, server });
  const expectInvariant = async (
    c: PaymentCase,
    before: Awaited<ReturnType<typeof snapshotMoney>>,
  ) => expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before);

  it("mining paused during settle: 409 settlement_pending with the hash, paid once it resumes", async () => {
    const c = await newPaymentCase(market());
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    await chain.pauseMining();
    try {
      const response = await payingFetch(c.payer)(c.settleUrl(), { method: "POST" });
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ code: "settlement_pending" });
      const payment = (await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data;
      expect(payment).toMatchObject({ status: "pending", txHash: expect.stringMatching(/^0x/) });
      // No second payment while the first can still land: not even a challenge.
      const second = await fetchChallenge(c.settleUrl());
      expect(second.status).toBe(409);
      expect(second.body.code).toBe("settlement_pending");
    } finally {
      await chain.resumeMining();
    }
    expect(await expectInvariant(c, before)).toBe("paid");
    const { txHash } = (await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data!;
    const accepted = await c.poster.post(`/api/v1/jobs/${c.job.id}/accept`, {
      proposalId: c.proposalId,
      txHash,
    });
    expect(accepted.status).toBe(200);
  });

  it("the RPC cuts the answer to eth_sendRawTransaction once: the sender asks the node, 200", async () => {
    const c = await newPaymentCase(market());
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    proxy.add({ match: rpc("eth_sendRawTransaction"), response: { kind: "cut" }, times: 1 });
    const response = await payingFetch(c.payer)(c.settleUrl(), { method: "POST" });
    expect(response.status).toBe(200);
    expect(await expectInvariant(c, before)).toBe("paid");
  });

  it("the RPC fails after eth_sendRawTransaction: pending, then reconciled with no one asking", async () => {
    const c = await newPaymentCase(market());
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    const faults = [
      proxy.add({ match: rpc("eth_sendRawTransaction"), response: { kind: "cut" } }),
      proxy.add({ match: rpc("eth_getTransactionByHash"), request: { kind: "fail" } }),
      proxy.add({ match: rpc("eth_getTransactionReceipt"), request: { kind: "fail" } }),
    ];
    let status: number;
    try {
      const response = await payingFetch(c.payer)(c.settleUrl(), { method: "POST" });
      status = response.status;
      expect(await response.json()).toMatchObject({ code: "settlement_pending" });
    } finally {
      for (const remove of faults) remove();
    }
    expect(status).toBe(409);
    expect(await expectInvariant(c, before)).toBe("paid");
  });

  it("receipts slower than the facilitator's patience: our server confirms from the chain, 200", async () => {
    const c = await newPaymentCase(market());
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    // The facilitator gives up on the receipt after 2 s and answers "settlement_pending";
    // that is not a refusal: the server asks the chain itself and finds the transfer.
    const slow = proxy.add({
      match: rpc("eth_getTransactionReceipt"),
      response: { kind: "delay", ms: 2_500 },
    });
    try {
      const response = await payingFetch(c.payer)(c.settleUrl(), { method: "POST" });
      expect(response.status).toBe(200);
    } finally {
      slow();
    }
    expect(await expectInvariant(c, before)).toBe("paid");
  });

  it("a lost response: the client retries the same signature and gets the same 200", async () => {
    const c = await newPaymentCase(market());
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    const header = await signedHeader(market(), c);
    const abort = new AbortController();
    const broadcast = proxy.waitFor(rpc("eth_sendRawTransaction"));
    const lost = send(c.settleUrl(), header, abort.signal).catch((error: Error) => error);
    await broadcast;
    abort.abort();
    expect(await lost).toBeInstanceOf(Error);
    let retry = await send(c.settleUrl(), header);
    for (let i = 0; retry.status === 409 && i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      retry = await send(c.settleUrl(), header);
    }
    expect(retry.status).toBe(200);
    const body = await retry.text();
    const again = await send(c.settleUrl(), header);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(body);
    expect(again.headers.get("payment-response")).toBe(retry.headers.get("payment-response"));
    expect(await expectInvariant(c, before)).toBe("paid");
  });

  it("a reject racing the payment of the same proposal, 20 rounds: never paid and rejected", async () => {
    const outcomes = { paid: 0, rejected: 0 };
    for (let round = 0; round < 20; round++) {
      const c = await newPaymentCase(market(), (100 + round) / 100);
      const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
      const header = await signedHeader(market(), c);
      const [settle, reject] = await Promise.all([
        send(c.settleUrl(), header),
        c.poster.post(`/api/v1/jobs/${c.job.id}/proposals/${c.proposalId}/reject`),
      ]);
      const world = await expectInvariant(c, before);
      const [proposal] = (await c.poster.get(`/api/v1/jobs/${c.job.id}/proposals?status=all`)).body
        .data;
      if (world === "paid") {
        expect(settle.status).toBe(200);
        expect(reject.status, `round ${round}`).toBe(409);
        expect(proposal!.status).toBe("pending");
        outcomes.paid += 1;
      } else {
        expect(reject.status, `round ${round}`).toBe(200);
        expect(proposal!.status).toBe("rejected");
        expect(settle.status).toBe(409);
        expect((await settle.json()).code).toBe("proposal_not_pending");
        outcomes.rejected += 1;
      }
    }
    expect(outcomes.paid + outcomes.rejected).toBe(20);
  });
});

describe("settling when the chain forgets the transfer (it never lands)", () => {
  // A chain per case: each moves the chain's clock past every authorization's validBefore.
  let chain: TestChain;
  let proxy: FaultProxy;
  let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
  let env: Record<string, string>;
  let server: RunningServer;

  beforeEach(async () => {
    chain = await startTestChain();
    proxy = await FaultProxy.start(chain.rpcUrl);
    database = await prepareServerDatabase(KIND);
    env = { ...database.env, ...FAST_RECOVERY, CHAIN_RPC_URL: proxy.url };
    server = await startServer(env);
  });

  afterEach(async () => {
    await server?.stop();
    await proxy?.close();
    await chain?.stop();
    await database?.cleanup();
  });

  /** The node drops all since `snapshot`, the unmined transfer with it, and mines on. */
  async function forget(snapshot: string) {
    await chain.revert(snapshot);
    await chain.resumeMining();
  }

  async function forgetAndExpire(snapshot: string) {
    await forget(snapshot);
    await chain.increaseTime(3_600);
  }

  /** A signed payment and a chain snapshot to forget back to, with mining paused. */
  async function pausedPayment() {
    const c = await newPaymentCase({ chain, server });
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    const header = await signedHeader({ server }, c);
    const snapshot = await chain.snapshot();
    await chain.pauseMining();
    return { c, before, header, snapshot };
  }

  it("decided in the request: 402 settlement_failed with PAYMENT-RESPONSE, the slot free, nothing moved", async () => {
    const { c, before, header, snapshot } = await pausedPayment();
    const sent = proxy.waitFor(rpc("eth_sendRawTransaction"), "response");
    const pending = send(c.settleUrl(), header);
    await sent;
    await forgetAndExpire(snapshot);
    const response = await pending;
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({ code: "settlement_failed" });
    expect(decodePaymentResponseHeader(response.headers.get("payment-response")!)).toMatchObject({
      success: false,
      errorReason: "settlement_failed",
      payer: c.payer.address,
    });
    expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before)).toBe("unpaid");
    // The slot is free: the poster is challenged again, not told a payment is in flight.
    expect((await fetchChallenge(c.settleUrl())).status).toBe(402);
    // The same signature again gets the recorded failure, not a second attempt.
    const retry = await send(c.settleUrl(), header);
    expect(retry.status).toBe(402);
    expect((await retry.json()).code).toBe("settlement_failed");
  });

  // x402 remembers the hash of a settlement it stopped waiting for and, on the next settle of
  // the same signature, waits on it instead of sending. Once the node has dropped it, that wait
  // can never end: the reconciler's resubmit waited pass after pass until the authorization
  // expired unpaid. Now a hash the node no longer has is forgotten and the authorization sent
  // again (lib/payments/facilitator/pending-settlements.ts).
  it("forgotten after the request gave up on it, the authorization still valid: the reconciler sends it again and it lands", async () => {
    const { c, before, header, snapshot } = await pausedPayment();
    // Nothing mines: the request waits for its receipt twice (x402's second try), then answers.
    const response = await send(c.settleUrl(), header);
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: "settlement_pending" });
    // The node forgets the transfer and mines on; the chain's clock stays inside validBefore.
    await forget(snapshot);
    expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before)).toBe("paid");
  });

  it("forgotten while the request waits for it: the request's second try sends it again: 200", async () => {
    const { c, before, header, snapshot } = await pausedPayment();
    const sent = proxy.waitFor(rpc("eth_sendRawTransaction"), "response");
    const pending = send(c.settleUrl(), header);
    await sent;
    await forget(snapshot);
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before)).toBe("paid");
  });

  it("decided by the reconciler after the server died with the transfer in the node", async () => {
    const { c, before, header, snapshot } = await pausedPayment();
    const sent = proxy.waitFor(rpc("eth_sendRawTransaction"), "response");
    const request = send(c.settleUrl(), header).catch((error: Error) => error);
    await sent;
    await server.kill();
    expect(await request).toBeInstanceOf(Error);
    await forgetAndExpire(snapshot);
    server = await startServer(env);
    expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before)).toBe("unpaid");
    const payment = await fetch(`${server.url}/api/v1/jobs/${c.job.id}/payment`);
    expect((await payment.json()).data.status).toBe("failed");
  });
  it("claimed, nothing ever sent, the authorization expired: the reconciler frees the slot", async () => {
    const c = await newPaymentCase({ chain, server });
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    const header = await signedHeader({ server }, c);
    // Every broadcast fails before it reaches the node: the slot is claimed, nothing is sent.
    const noBroadcast = proxy.add({
      match: rpc("eth_sendRawTransaction"),
      request: { kind: "fail", status: 502 },
    });
    try {
      const response = await send(c.settleUrl(), header);
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ code: "settlement_pending" });
      // No second payment while this one could still be sent: not even a challenge.
      expect((await fetchChallenge(c.settleUrl())).body.code).toBe("settlement_pending");
      expect(
        (await fetch(`${server.url}/api/v1/jobs/${c.job.id}/payment`).then((r) => r.json())).data,
      ).toMatchObject({ status: "pending" });
      // The chain's clock passes the authorization's validBefore; the reconciler (production's,
      // with its real 4 s grace) sees it unused at a block past that time and frees the slot.
      await chain.increaseTime(3_600);
      expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before)).toBe(
        "unpaid",
      );
      expect(
        proxy.seen.filter((request) => request.rpcMethods.includes("eth_sendRawTransaction"))
          .length,
      ).toBeGreaterThan(0);
    } finally {
      noBroadcast();
    }
    const payment = (
      await fetch(`${server.url}/api/v1/jobs/${c.job.id}/payment`).then((r) => r.json())
    ).data;
    expect(payment).toMatchObject({ status: "failed" });
    // The slot is free: the poster is challenged for a new authorization, not told to wait.
    // (Paying it here would need the payer's clock moved with the chain's.)
    const challenge = await fetchChallenge(c.settleUrl());
    expect(challenge.status).toBe(402);
    expect(challenge.body.code).toBe("payment_required");
  });

  (KIND === "postgres" ? it : () => {})(
    "the facilitator says no after our verify (funds moved away): pending, never failed on its word",
    async () => {
      const c = await newPaymentCase({ chain, server });
      const header = await signedHeader({ server }, c);
      const gate = await closeTableForWrites(database.env.DATABASE_URL!, "settlements");
      const request = send(c.settleUrl(), header);
      try {
        await gate.waitForBlocked(/INSERT INTO .*settlements/);
        // Verified; before the facilitator settles, the poster empties the wallet.
        await drainUsdc(chain, c.payer);
      } finally {
        await gate.open();
      }
      const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
      const response = await request;
      expect(response.status).toBe(409);
      expect((await response.json()).code).toBe("settlement_pending");
      // The authorization could still land if the wallet were refilled: only its expiry by the
      // chain's clock ends it. The reconciler keeps it pending until then.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const payment = await fetch(`${server.url}/api/v1/jobs/${c.job.id}/payment`);
      expect((await payment.json()).data.status).toBe("pending");
      await chain.increaseTime(3_600);
      expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before)).toBe(
        "unpaid",
      );
    },
  );
});

describe("a facilitator service that fails before anything is sent", () => {
  let chain: TestChain;
  let facilitator: FacilitatorProcess;
  let facilitatorProxy: FaultProxy;
  let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
  let server: RunningServer;

  beforeAll(async () => {
    chain = await startTestChain();
    facilitator = await startFacilitatorProcess({ CHAIN_RPC_URL: chain.rpcUrl });
    facilitatorProxy = await FaultProxy.start(facilitator.url);
    database = await prepareServerDatabase(KIND);
    server = await startServer({
      ...database.env,
      ...FAST_RECOVERY,
      CHAIN_RPC_URL: chain.rpcUrl,
      X402_FACILITATOR_URL: facilitatorProxy.url,
      FACILITATOR_SECRET: TEST_FACILITATOR_SECRET,
    });
  });

  afterAll(async () => {
    await server?.stop();
    await facilitatorProxy?.close();
    await facilitator?.stop();
    await chain?.stop();
    await database?.cleanup();
  });

  it.each([
    ["answers 500", { kind: "fail", status: 500 } as const],
    ["cuts the connection", { kind: "cut" } as const],
  ])(
    "verify %s: 503 facilitator_unavailable, nothing recorded or moved; the same signature pays later",
    async (_name, fault) => {
      const c = await newPaymentCase({ chain, server });
      const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
      const header = await signedHeader({ server }, c);
      const broken = facilitatorProxy.add({ match: path("/verify"), request: fault });
      try {
        const response = await send(c.settleUrl(), header);
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("5");
        expect(await response.json()).toEqual({
          error: "the payment facilitator is not answering; nothing was charged, retry shortly",
          code: "facilitator_unavailable",
        });
      } finally {
        broken();
      }
      expect((await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data).toBeNull();
      expect(await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet)).toEqual(before);
      expect(facilitatorProxy.seen.some((request) => request.path === "/settle")).toBe(false);
      // Nothing was claimed: the very same signature settles once the facilitator answers.
      const retry = await send(c.settleUrl(), header);
      expect(retry.status).toBe(200);
      expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before)).toBe("paid");
      facilitatorProxy.seen.length = 0;
    },
  );
});

/** Moves all of the account's test USDC away (giving it gas money first). */
async function drainUsdc(chain: TestChain, account: PaymentCase["payer"]) {
  await chain.setBalance(account.address, 10n * 10n ** 18n);
  const wallet = createWalletClient({
    account,
    chain: localChain(chain.rpcUrl),
    transport: http(chain.rpcUrl),
  });
  const balance = await tokenOn(chain.rpcUrl).balanceOf(account.address);
  await wallet.writeContract({
    address: LOCAL_TOKEN_ADDRESS,
    abi: [...usdcAbi, ...TRANSFER_ABI],
    functionName: "transfer",
    args: ["0x000000000000000000000000000000000000dEaD", balance],
  });
}

const TRANSFER_ABI = [
  {
    type: "function",
    name: "transfer",
    stateMutability: "nonpayable",
    inputs: [
      { name: "to", type: "address" },
      { name: "value", type: "uint256" },
    ],
    outputs: [{ type: "bool" }],
  },
] as const;

// Killing the server needs the database to outlive it, and two servers need a shared one:
// PostgreSQL. The facilitator runs as its own service, as in a multi-server deployment, so
// that the kill can land between our server's steps and the facilitator's.
(TEST_DATABASE_URL ? describe : () => {})("a server killed at each step of a settlement", () => {
  let chain: TestChain;
  let chainProxy: FaultProxy;
  let facilitator: FacilitatorProcess;
  let facilitatorProxy: FaultProxy;
  let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
  let env: Record<string, string>;
  let servers: RunningServer[] = [];

  beforeAll(async () => {
    chain = await startTestChain();
    chainProxy = await FaultProxy.start(chain.rpcUrl);
    facilitator = await startFacilitatorProcess({
      CHAIN_RPC_URL: chainProxy.url,
      SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "2",
    });
    facilitatorProxy = await FaultProxy.start(facilitator.url);
    database = await prepareServerDatabase("postgres");
    env = {
      ...database.env,
      ...FAST_RECOVERY,
      CHAIN_RPC_URL: chain.rpcUrl,
      X402_FACILITATOR_URL: facilitatorProxy.url,
      FACILITATOR_SECRET: TEST_FACILITATOR_SECRET,
      // Longer than the facilitator's own wait for a receipt (twice 2 s).
      FACILITATOR_TIMEOUT_SECONDS: "6",
    };
    servers = [await startServer(env)];
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await facilitatorProxy?.close();
    await facilitator?.stop();
    await chainProxy?.close();
    await chain?.stop();
    await database?.cleanup();
  });

  const app = () => servers[0]!;

  /**
   * Pays, kills the server when `killPoint` resolves, lets `afterKill` undo the trap, starts
   * `restart` servers on the same database, and returns the settled world.
   */
  async function killDuringPayment(
    arm: () => { killPoint: Promise<unknown>; afterKill?: () => Promise<void> | void },
    restart = 1,
  ) {
    const c = await newPaymentCase({ chain, server: app() });
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    const header = await signedHeader({ server: app() }, c);
    const { killPoint, afterKill } = arm();
    const request = send(c.settleUrl(), header).catch((error: Error) => error);
    await killPoint;
    await app().kill();
    expect(await request, "the killed server still answered").toBeInstanceOf(Error);
    await afterKill?.();
    servers = [];
    for (let i = 0; i < restart; i++) servers.push(await startServer(env));
    const world = await expectPaidOnceOrNotAtAll(chain.rpcUrl, app().url, c.job, before);
    return { world, c, header };
  }

  it("a facilitator that claims success with no transfer is not believed", async () => {
    const c = await newPaymentCase({ chain, server: app() });
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    const header = await signedHeader({ server: app() }, c);
    const lie = facilitatorProxy.add({
      match: path("/settle"),
      request: {
        kind: "respond",
        status: 200,
        body: {
          success: true,
          transaction: `0x${"ab".repeat(32)}`,
          network: "eip155:31337",
          payer: c.payer.address,
        },
      },
      times: 1,
    });
    try {
      const response = await send(c.settleUrl(app().url), header);
      expect(response.status).toBe(409);
      expect((await response.json()).code).toBe("settlement_pending");
    } finally {
      lie();
    }
    // Not paid: the reconciler sends the stored authorization to the honest facilitator.
    expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, app().url, c.job, before)).toBe("paid");
  });

  it("after verify, before the claim: nothing recorded, nothing moved, the job payable", async () => {
    const gate = await closeTableForWrites(database.env.DATABASE_URL!, "settlements");
    const { world, c } = await killDuringPayment(() => ({
      killPoint: gate.waitForBlocked(/INSERT INTO .*settlements/),
      afterKill: () => gate.open(),
    }));
    expect(world).toBe("unpaid");
    const payment = await fetch(`${app().url}/api/v1/jobs/${c.job.id}/payment`);
    expect((await payment.json()).data).toBeNull();
    const paid = await payingFetch(c.payer)(c.settleUrl(app().url), { method: "POST" });
    expect(paid.status).toBe(200);
  });

  // Its own budget: the reconciler may resubmit only once the killed request's in-flight
  // window (twice the facilitator timeout + 15 s = 27 s) has passed.
  it(
    "after the claim, before the facilitator sent anything: the reconciler finishes it",
    {
      timeout: 120_000,
    },
    async () => {
      let remove = () => {};
      const { world } = await killDuringPayment(() => {
        remove = facilitatorProxy.add({
          match: path("/settle"),
          request: { kind: "hold" },
          times: 1,
        });
        return {
          killPoint: facilitatorProxy.waitFor(path("/settle")),
          afterKill: () => {
            remove();
            facilitatorProxy.releaseHeld();
          },
        };
      });
      expect(world).toBe("paid");
    },
  );

  it("after the transfer was sent, with two servers reconciling: paid exactly once", async () => {
    const { world } = await killDuringPayment(
      () => ({ killPoint: chainProxy.waitFor(rpc("eth_sendRawTransaction"), "response") }),
      2,
    );
    expect(world).toBe("paid");
  });

  it("after the chain confirmed, before our server heard: paid, found from the chain", async () => {
    let remove = () => {};
    const { world } = await killDuringPayment(() => {
      remove = facilitatorProxy.add({
        match: path("/settle"),
        response: { kind: "hold" },
        times: 1,
      });
      return {
        killPoint: facilitatorProxy.waitFor(path("/settle"), "response"),
        afterKill: () => {
          remove();
          facilitatorProxy.releaseHeld();
        },
      };
    });
    expect(world).toBe("paid");
  });

  it("after our server heard, before it recorded: paid, found from the chain", async () => {
    let gate: Awaited<ReturnType<typeof closeTableForWrites>> | undefined;
    const { world } = await killDuringPayment(() => ({
      killPoint: facilitatorProxy.waitFor(path("/settle")).then(async () => {
        gate = await closeTableForWrites(database.env.DATABASE_URL!, "settlements");
        // The first ledger write after the facilitator answered (the reconciler's lease
        // updates are not it).
        await gate.waitForBlocked(/UPDATE [^;]*"settlements"\s+SET\s+"(?!leaseUntil)/);
      }),
      afterKill: () => gate?.open(),
    }));
    expect(world).toBe("paid");
  });
});
