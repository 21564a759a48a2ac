// The background reconciler's chain calls, counted at a proxy between the server and the chain
// (never timed): every server runs a pass every few seconds, and a pass with no held payment
// open has nothing on chain to look at, so it makes no chain call; once a payment is held, its
// passes read the chain's clock (auto-release and reclaim deadlines are the chain's time).
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { payProtected } from "@/tests/helpers/escrow-payments";
import { FaultProxy } from "@/tests/helpers/fault-proxy";
import { newPaymentCase } from "@/tests/helpers/market";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";

failOnServerErrors();

/** The gas keys' balance watch runs on its own timer: not the reconciler's. */
const BALANCE_WATCH = "eth_getBalance";

describe("the reconciler's chain calls (PostgreSQL)", () => {
  let chain: TestChain;
  let proxy: FaultProxy;
  let server: RunningServer;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    chain = await startTestChain();
    proxy = await FaultProxy.start(chain.rpcUrl);
    const database = await prepareServerDatabase("postgres");
    cleanup = database.cleanup;
    server = await startServer({
      ...database.env,
      CHAIN_RPC_URL: proxy.url,
      SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
    });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await chain?.stop();
    await cleanup?.();
  });

  /** The chain methods the server called during `ms` milliseconds of doing nothing else. */
  async function callsWhileIdle(ms: number): Promise<string[]> {
    const from = proxy.seen.length;
    await sleep(ms);
    return proxy.seen
      .slice(from)
      .flatMap((seen) => seen.rpcMethods)
      .filter((method) => method !== BALANCE_WATCH);
  }

  it("no hold open: three passes, no chain call; a hold held: each pass reads the chain's clock", async () => {
    expect(await callsWhileIdle(3_500)).toEqual([]);

    const c = await newPaymentCase({ chain, server });
    const paid = await payProtected(c.payer, `${c.settleUrl()}&mode=escrow`);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const held = (await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data as any;
    expect(held.escrow.state).toBe("held");

    const calls = await callsWhileIdle(3_500);
    expect(
      calls.filter((method) => method === "eth_getBlockByNumber").length,
      calls.join(" "),
    ).toBeGreaterThanOrEqual(2);
  });
});
