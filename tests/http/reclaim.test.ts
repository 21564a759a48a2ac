// Issue 25: after authorizationExpiry the poster reclaims a protected payment directly on chain
// with scripts/reclaim.ts while our server is stopped (the chain and the database stay), and
// the server, started again on the same database, records what the chain did. The script runs
// as a child process, as a poster would run it: its key only in the environment.
import { execFile } from "node:child_process";
import path from "node:path";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "@/tests/helpers/api";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { DB_KINDS } from "@/tests/helpers/db";
import { chainNow, escrowClients, tokenBalance } from "@/tests/helpers/escrow";
import { operatorStoreAddress, payProtected } from "@/tests/helpers/escrow-payments";
import { newPaymentCase } from "@/tests/helpers/market";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { tsxArgs, tsxBin } from "@/tools/run";

const ETH = 10n ** 18n;

/** scripts/reclaim.ts as a child process: its exit code and everything it printed. */
function runReclaim(
  args: string[],
  payerKey: Hex | undefined,
): Promise<{ code: number; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.PAYER_PRIVATE_KEY;
  if (payerKey) env.PAYER_PRIVATE_KEY = payerKey;
  return new Promise((resolve) => {
    execFile(
      path.resolve(tsxBin),
      [...tsxArgs, "scripts/reclaim.ts", ...args],
      { env, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe.each([DB_KINDS.at(-1)!])("reclaim without our server on %s", (kind) => {
  let chain: TestChain;
  let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
  let env: Record<string, string>;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    chain = await startTestChain();
    database = await prepareServerDatabase(kind);
    env = {
      ...database.env,
      CHAIN_RPC_URL: chain.rpcUrl,
      ESCROW_GRACE_HOURS: "1",
      ESCROW_REVIEW_HOURS: "1",
      ESCROW_DISPUTE_HOURS: "1",
      SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
    };
    server = await startServer(env);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await chain?.stop();
    await database?.cleanup();
  });

  it("reclaim on chain after expiry with our server stopped", async () => {
    const { publicClient } = escrowClients(chain.rpcUrl);
    const balanceOf = (address: Address) => tokenBalance(publicClient, address);
    const storeAddress = await operatorStoreAddress(publicClient);

    // The poster pays protected and accepts: the bid is held in escrow.
    const payerKey = generatePrivateKey();
    const c = await newPaymentCase({ chain, server: server! }, 7.25, privateKeyToAccount(payerKey));
    const paid = await payProtected(c.payer, `${c.settleUrl()}&mode=escrow`);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const accepted = await c.poster.post(`/api/v1/jobs/${c.job.id}/accept`, {
      proposalId: c.proposalId,
      txHash: paid.body.data.txHash,
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const held = (await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data as any;
    expect(held.escrow.state).toBe("held");
    const hash = held.escrow.paymentInfoHash as Hex;
    const heldUntil = new Date(held.escrow.heldUntil);
    const payerHeld = await balanceOf(c.payer.address);
    expect(await balanceOf(storeAddress)).toBe(c.job.bidAtomic);
    // Gas for the payer's own transaction, and for a stranger who tries.
    const stranger = generatePrivateKey();
    await chain.setBalance(c.payer.address, ETH);
    await chain.setBalance(privateKeyToAccount(stranger).address, ETH);

    // Our server is gone; the chain and the database stay.
    await server!.stop();
    server = undefined;
    const rpc = ["--rpc", chain.rpcUrl];

    const early = await runReclaim(["--payment", hash, ...rpc], payerKey);
    expect(early.code, early.output).toBe(1);
    expect(early.output).toContain(`too early: reclaimable from ${heldUntil.toISOString()}`);
    expect(await balanceOf(c.payer.address)).toBe(payerHeld);

    await chain.increaseTime(heldUntil.getTime() / 1000 - (await chainNow(publicClient)) + 60);

    const byStranger = await runReclaim(["--payment", hash, ...rpc], stranger);
    expect(byStranger.code, byStranger.output).toBe(1);
    expect(byStranger.output).toContain(`only the payer ${c.payer.address} can reclaim`);
    expect(byStranger.output).not.toContain("Sent reclaim");
    const dryRun = await runReclaim(["--payment", hash, ...rpc, "--dry-run"], payerKey);
    expect(dryRun.code, dryRun.output).toBe(0);
    expect(dryRun.output).toContain("Dry run: reclaim would return 7.25 USDC");
    expect(await balanceOf(c.payer.address)).toBe(payerHeld);
    expect(await balanceOf(storeAddress)).toBe(c.job.bidAtomic);

    const reclaimed = await runReclaim(["--payment", hash, ...rpc], payerKey);
    expect(reclaimed.code, reclaimed.output).toBe(0);
    const sent = /Reclaimed 7\.25 USDC to 0x[0-9a-fA-F]{40} in (0x[0-9a-f]{64})/.exec(
      reclaimed.output,
    );
    expect(sent, reclaimed.output).not.toBeNull();
    const reclaimTx = sent![1]!;
    expect(await balanceOf(c.payer.address)).toBe(payerHeld + c.job.bidAtomic);
    expect(await balanceOf(storeAddress)).toBe(0n);

    const again = await runReclaim(["--payment", hash, ...rpc], payerKey);
    expect(again.code, again.output).toBe(1);
    expect(again.output).toContain(`nothing to do`);
    expect(again.output).toContain(`already reclaimed in ${reclaimTx}`);
    expect(await balanceOf(c.payer.address)).toBe(payerHeld + c.job.bidAtomic);

    // A server on the same database and chain: its reconciler finds the reclaim on chain.
    server = await startServer(env);
    const poster = await new ApiClient(server.url, c.payer).signIn();
    let payment = (await poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data as any;
    for (let i = 0; i < 60 && payment.escrow.state !== "reclaimed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      payment = (await poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data;
    }
    expect(payment.escrow).toMatchObject({
      state: "reclaimed",
      heldUsdc: 0,
      releasedUsdc: 0,
      refundedUsdc: Number(c.job.bidAtomic) / 1e6,
    });
    expect(payment.escrow.transactions).toEqual([
      expect.objectContaining({ kind: "reclaim", status: "succeeded", txHash: reclaimTx }),
    ]);
    expect((await poster.get(`/api/v1/jobs/${c.job.id}`)).body.data.status).toBe("cancelled");
    const events = (await poster.get(`/api/v1/events?jobId=${c.job.id}`)).body.data.map(
      (e: { type: string }) => e.type,
    );
    expect(events).toEqual(expect.arrayContaining(["payment.held", "payment.refunded"]));
  });

  it("answers bad usage with exit code 2, before touching the chain", async () => {
    const key = generatePrivateKey();
    const hash = `0x${"ab".repeat(32)}`;
    const cases: [string[], Hex | undefined, string][] = [
      [["--payment", "0x1234"], key, "--payment must be the payment's hash"],
      [["--payment", hash], undefined, "set PAYER_PRIVATE_KEY"],
      [["--payment", hash, "--private-key", key], undefined, "Unknown option"],
      [
        ["--payment", hash, "--network", "base", "--rpc", "http://127.0.0.1:9"],
        key,
        "--from-block",
      ],
    ];
    for (const [args, payerKey, message] of cases) {
      const { code, output } = await runReclaim(args, payerKey);
      expect(code, output).toBe(2);
      expect(output).toContain(message);
    }
  });
});
