// A write that changes both a job and its held payment locks the job first, then the hold
// (lib/payments/escrow/holds.ts). Here the poster's complete (job, then hold) and the
// reconciler's record of the payer's reclaim (it cancels the job) are lined up on the job's
// row: with the reclaim taking the hold first, each held the row the other waited for until
// PostgreSQL killed one of them ("deadlock detected"); in one order, the reclaim waits for the
// completion and records the money gone back to the payer, once. Row locks: PostgreSQL.
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS } from "@/dev/escrow";
import { escrowAbi } from "@/lib/payments/escrow/abi";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import { chainNow, escrowClients, tokenBalance } from "@/tests/helpers/escrow";
import { payProtected } from "@/tests/helpers/escrow-payments";
import { newPaymentCase } from "@/tests/helpers/market";
import { closeRowsForWrites } from "@/tests/helpers/pg-gate";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";

// A deadlock's victim: the request (a 500), or the reconciler's record of the reclaim (logged
// as its failure; Prisma's message for it starts with an empty line, without the word).
failOnServerErrors({ alsoForbid: [/deadlock/i, /Escrow reconciler: reclaim of/] });

const ETH = 10n ** 18n;

(TEST_DATABASE_URL ? describe : describe.skip)(
  "one lock order for a job and its held payment",
  { timeout: 180_000 },
  () => {
    let chain: TestChain;
    let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
    let server: RunningServer;

    beforeAll(async () => {
      chain = await startTestChain();
      database = await prepareServerDatabase("postgres");
      server = await startServer({
        ...database.env,
        CHAIN_RPC_URL: chain.rpcUrl,
        SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
        ESCROW_GRACE_HOURS: "1",
        ESCROW_REVIEW_HOURS: "2",
        ESCROW_DISPUTE_HOURS: "24",
      });
    }, 180_000);

    afterAll(async () => {
      await server?.stop();
      await chain?.stop();
      await database?.cleanup();
    });

    it("complete and the record of a reclaim at once: the completion first, the reclaim recorded once, no deadlock", async () => {
      const { publicClient, walletFor } = escrowClients(chain.rpcUrl);
      const balanceOf = (address: Address) => tokenBalance(publicClient, address);
      const payer = privateKeyToAccount(generatePrivateKey());
      const c = await newPaymentCase({ chain, server }, 7.25, payer);
      const paid = await payProtected(payer, `${c.settleUrl()}&mode=escrow`);
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      const accepted = await c.poster.post(`/api/v1/jobs/${c.job.id}/accept`, {
        proposalId: c.proposalId,
        txHash: paid.body.data.txHash,
      });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect((await c.operator.post(`/api/v1/jobs/${c.job.id}/deliver`, {})).status).toBe(200);
      const held = (await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data as any;
      const hash = held.escrow.paymentInfoHash as Hex;
      const heldUntil = new Date(held.escrow.heldUntil).getTime() / 1000;
      const payerHeld = await balanceOf(payer.address);

      const schema = new URL(database.env.DATABASE_URL!).searchParams.get("schema")!;
      // The completion's UPDATE of the job, the reclaim's (old order) or its lock (one order).
      const jobWrites = new RegExp(`UPDATE "${schema}"\\."jobs"|FROM "jobs" .*FOR NO KEY UPDATE`);
      const gate = await closeRowsForWrites(database.env.DATABASE_URL!, "jobs", "id", c.job.id);
      let completed;
      try {
        // Still capturable when complete checks it; its transaction then waits on the job.
        const completing = c.poster.post(`/api/v1/jobs/${c.job.id}/complete`, {});
        await gate.waitForBlocked(jobWrites, 30_000, 1);

        // The capture deadline passes and the payer takes the money back on chain; the
        // reconciler (every second) records it and cancels the job: it queues on the job too.
        await chain.increaseTime(heldUntil - (await chainNow(publicClient)) + 60);
        await chain.setBalance(payer.address, ETH);
        const [authorized] = await publicClient.getContractEvents({
          address: LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
          abi: escrowAbi,
          eventName: "PaymentAuthorized",
          args: { paymentInfoHash: hash },
          fromBlock: 0n,
        });
        const reclaim = await walletFor(payer).writeContract({
          address: LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
          abi: escrowAbi,
          functionName: "reclaim",
          args: [authorized!.args.paymentInfo!],
        });
        expect((await publicClient.waitForTransactionReceipt({ hash: reclaim })).status).toBe(
          "success",
        );
        await gate.waitForBlocked(jobWrites, 60_000, 2);
        await gate.open();
        completed = await completing;
      } finally {
        await gate.open();
      }
      expect(completed.status, JSON.stringify(completed.body)).toBe(200);

      let payment = (await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data as any;
      for (let i = 0; i < 60 && payment.escrow.state !== "reclaimed"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        payment = (await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data;
      }
      expect(payment.escrow).toMatchObject({ state: "reclaimed", releasedUsdc: 0 });
      const reclaims = payment.escrow.transactions.filter(
        (t: { kind: string; status: string }) => t.kind === "reclaim" && t.status === "succeeded",
      );
      expect(reclaims).toHaveLength(1);
      expect(await balanceOf(payer.address)).toBe(payerHeld + c.job.bidAtomic);
    });
  },
);
