// Protected payments under faults (issue 25): the operator's capture with the chain stalled,
// the server killed after the capture was broadcast and before its outcome was recorded, the
// server killed before the capture reached the node, complete racing a dispute, deliver racing
// cancel, and two servers auto-releasing the same job. Each case ends with the money checked on
// chain and through the API: released (or returned) exactly once, and the record says which.
// Killing a server needs the database to outlive it, two servers a shared one: PostgreSQL.
import { type Address, toFunctionSelector } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escrowAbi } from "@/lib/payments/escrow/abi";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import { FaultProxy } from "@/tests/helpers/fault-proxy";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { newPaymentCase, type PaymentCase } from "@/tests/helpers/market";
import { tokenOn } from "@/tests/helpers/money";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";
import { payProtected } from "@/tests/helpers/escrow-payments";

failOnServerErrors();

const HOUR = 3600;
const CAPTURE = toFunctionSelector(
  escrowAbi.find((item) => item.type === "function" && item.name === "capture")!,
).slice(2);

/** A raw transaction carrying the escrow's capture (its selector is in the signed calldata). */
const isCaptureSend = (request: { rpcMethods: string[]; body: string }) =>
  request.rpcMethods.includes("eth_sendRawTransaction") &&
  request.body.toLowerCase().includes(CAPTURE);

(TEST_DATABASE_URL ? describe : describe.skip)(
  "protected payments under faults",
  { timeout: 180_000 },
  () => {
    let chain: TestChain;
    let chainProxy: FaultProxy;
    let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
    let env: Record<string, string>;
    let servers: RunningServer[] = [];
    const app = () => servers[0]!;

    beforeAll(async () => {
      chain = await startTestChain();
      chainProxy = await FaultProxy.start(chain.rpcUrl);
      database = await prepareServerDatabase("postgres");
      env = {
        ...database.env,
        CHAIN_RPC_URL: chainProxy.url,
        SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "2",
        SETTLEMENT_RECONCILE_AFTER_SECONDS: "4",
        SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
        RATE_LIMIT_WRITES_PER_MINUTE: "100000",
        RATE_LIMIT_AUTH_PER_MINUTE: "100000",
        ESCROW_GRACE_HOURS: "1",
        ESCROW_REVIEW_HOURS: "2",
        ESCROW_DISPUTE_HOURS: "24",
        // Disputes need someone who can resolve them.
        ADMIN_ADDRESSES: "0x000000000000000000000000000000000000a11c",
      };
      servers = [await startServer(env)];
    }, 180_000);

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await chainProxy?.close();
      await chain?.stop();
      await database?.cleanup();
    });

    const balanceOf = (address: string) => tokenOn(chain.rpcUrl).balanceOf(address as Address);
    const paymentOf = async (c: PaymentCase): Promise<any> =>
      (await fetch(`${app().url}/api/v1/jobs/${c.job.id}/payment`).then((r) => r.json())).data;

    /** Paid protected and accepted; with `deliver`, delivered too. */
    async function heldJob(deliver = true) {
      const c = await newPaymentCase({ chain, server: app() });
      const paid = await payProtected(c.payer, `${c.settleUrl()}&mode=escrow`);
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      const accepted = await c.poster.post(`/api/v1/jobs/${c.job.id}/accept`, {
        proposalId: c.proposalId,
        txHash: paid.body.data.txHash,
      });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      if (deliver)
        expect((await c.operator.post(`/api/v1/jobs/${c.job.id}/deliver`, {})).status).toBe(200);
      return {
        c,
        agentBefore: await balanceOf(c.agentWallet),
        payerBefore: await balanceOf(c.payer.address),
      };
    }

    /** Waits until the hold leaves its in-between states, then checks the money moved once. */
    async function expectSettledOnce(
      held: Awaited<ReturnType<typeof heldJob>>,
      expected: "released" | "refunded",
    ) {
      const { c, agentBefore, payerBefore } = held;
      let payment = await paymentOf(c);
      for (let i = 0; i < 120 && !["released", "refunded"].includes(payment.escrow.state); i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        payment = await paymentOf(c);
      }
      expect(payment.escrow.state).toBe(expected);
      const succeeded = payment.escrow.transactions.filter(
        (t: { status: string }) => t.status === "succeeded",
      );
      expect(succeeded).toHaveLength(1);
      expect(succeeded[0].kind).toBe(expected === "released" ? "capture" : "void");
      const moved = expected === "released" ? c.job.bidAtomic : 0n;
      expect(await balanceOf(c.agentWallet)).toBe(agentBefore + moved);
      expect(await balanceOf(c.payer.address)).toBe(payerBefore + (c.job.bidAtomic - moved));
      return payment;
    }

    it("mining paused during capture: complete answers with the payment releasing, released once it resumes", async () => {
      const held = await heldJob();
      await chain.pauseMining();
      try {
        const completed = await held.c.poster.post(`/api/v1/jobs/${held.c.job.id}/complete`, {});
        expect(completed.status).toBe(200);
        expect(completed.body.data.status).toBe("completed");
        const releasing = await paymentOf(held.c);
        expect(releasing.escrow.state).toBe("releasing");
        expect(releasing.escrow.transactions).toEqual([
          expect.objectContaining({
            kind: "capture",
            status: "pending",
            txHash: expect.stringMatching(/^0x/),
          }),
        ]);
      } finally {
        await chain.resumeMining();
      }
      await expectSettledOnce(held, "released");
    });

    it("killed after the capture was broadcast, before its outcome was recorded: released once, found from the chain", async () => {
      const held = await heldJob();
      const remove = chainProxy.add({ match: isCaptureSend, response: { kind: "hold" }, times: 1 });
      const request = held.c.poster
        .post(`/api/v1/jobs/${held.c.job.id}/complete`, {})
        .catch((error: Error) => error);
      await chainProxy.waitFor(isCaptureSend, "response");
      await app().kill();
      await request;
      remove();
      chainProxy.releaseHeld();
      servers = [await startServer(env)];
      const payment = await expectSettledOnce(held, "released");
      expect(payment.escrow.transactions[0].actor).toBe(held.c.poster.account!.address);
    });

    it("killed before the capture reached the node: the reconciler sends it again, released once", async () => {
      const held = await heldJob();
      const remove = chainProxy.add({
        match: isCaptureSend,
        request: { kind: "fail", status: 502 },
      });
      const request = held.c.poster
        .post(`/api/v1/jobs/${held.c.job.id}/complete`, {})
        .catch((error: Error) => error);
      await chainProxy.waitFor(isCaptureSend);
      await app().kill();
      await request;
      remove();
      expect(await chain.pendingCount()).toBe(0);
      expect(await balanceOf(held.c.agentWallet)).toBe(held.agentBefore);
      servers = [await startServer(env)];
      await expectSettledOnce(held, "released");
    });

    it("the chain's clock not answering at delivery: an agent on time delivers (the wall clock decides), no 503", async () => {
      const held = await heldJob(false);
      const remove = chainProxy.add({
        match: (request) => request.rpcMethods.includes("eth_getBlockByNumber"),
        request: { kind: "fail", status: 502 },
      });
      try {
        const delivered = await held.c.operator.post(`/api/v1/jobs/${held.c.job.id}/deliver`, {});
        expect(delivered.status, JSON.stringify(delivered.body)).toBe(200);
      } finally {
        remove();
      }
    });

    it("complete racing a dispute, 5 rounds: one wins, the money moves once or stays held", async () => {
      for (let round = 0; round < 5; round++) {
        const held = await heldJob();
        const [completed, disputed] = await Promise.all([
          held.c.poster.post(`/api/v1/jobs/${held.c.job.id}/complete`, {}),
          held.c.operator.post(`/api/v1/jobs/${held.c.job.id}/dispute`, { reason: "not paid yet" }),
        ]);
        const winners = [completed.status, disputed.status].filter((status) => status === 200);
        expect(winners, `round ${round}: ${completed.status} ${disputed.status}`).toHaveLength(1);
        if (completed.status === 200) {
          expect(disputed.body.code).toMatch(/payment_not_held|job_not_in_progress/);
          await expectSettledOnce(held, "released");
        } else {
          expect(completed.body.code).toBe("dispute_open");
          const payment = await paymentOf(held.c);
          expect(payment.escrow).toMatchObject({
            state: "held",
            dispute: expect.objectContaining({ resolvedAt: null }),
          });
          expect(await balanceOf(held.c.agentWallet)).toBe(held.agentBefore);
        }
      }
    });

    it("after the deadlines (the chain's clock moved): cancel wins against a late delivery, refunded once; two servers auto-release once", async () => {
      // Paid before the clock moves: the payer's client signs against the wall clock.
      const races = [];
      for (let round = 0; round < 4; round++) races.push(await heldJob(false));
      const autos = [await heldJob(), await heldJob()];
      servers.push(await startServer(env));
      await chain.increaseTime(86_400 + 2 * HOUR + 60);

      for (const [round, held] of races.entries()) {
        const [delivered, cancelled] = await Promise.all([
          held.c.operator.post(`/api/v1/jobs/${held.c.job.id}/deliver`, {}),
          held.c.poster.post(`/api/v1/jobs/${held.c.job.id}/cancel`, {}),
        ]);
        // Past deliverBy nothing is delivered (a delivery would leave the review and dispute
        // windows short of heldUntil): refused as late, or as no longer in progress when the
        // cancel committed first.
        expect(cancelled.status, `round ${round}: ${JSON.stringify(cancelled.body)}`).toBe(200);
        expect(delivered.status, `round ${round}`).toBe(409);
        expect(["delivery_deadline_passed", "job_not_in_progress"]).toContain(delivered.body.code);
        await expectSettledOnce(held, "refunded");
      }
      // Both servers' reconcilers find the two delivered jobs due for auto-release.
      for (const held of autos) {
        const payment = await expectSettledOnce(held, "released");
        expect(payment.escrow.transactions[0].actor).toBe("auto-release");
      }
    });
  },
);
