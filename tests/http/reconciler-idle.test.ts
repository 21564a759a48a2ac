// The background reconciler's chain calls, counted at a proxy between the server and the chain
// (never timed): every server runs a pass every few seconds, and a pass with no held payment
// open has nothing on chain to look at, so it makes no chain call; once a payment is held, its
// passes read the chain's clock (auto-release and reclaim deadlines are the chain's time).
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payProtected } from "@/tests/helpers/escrow-payments";
import { newPaymentCase } from "@/tests/helpers/market";
import {
  BALANCE_WATCH_METHOD,
  type ProxiedChainServer,
  startProxiedChainServer,
} from "@/tests/helpers/proxied-chain";
import { failOnServerErrors } from "@/tests/helpers/server-logs";

failOnServerErrors();

describe("the reconciler's chain calls (PostgreSQL)", () => {
  let market: ProxiedChainServer;

  beforeAll(async () => {
    market = await startProxiedChainServer("postgres", {
      SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
    });
  }, 180_000);

  afterAll(() => market?.stop());

  /** The chain methods the server called during `ms` milliseconds of doing nothing else. */
  async function callsWhileIdle(ms: number): Promise<string[]> {
    const from = market.proxy.seen.length;
    await sleep(ms);
    return market.proxy.seen
      .slice(from)
      .flatMap((seen) => seen.rpcMethods)
      .filter((method) => method !== BALANCE_WATCH_METHOD);
  }

  it("no hold open: three passes, no chain call; a hold held: each pass reads the chain's clock", async () => {
    expect(await callsWhileIdle(3_500)).toEqual([]);

    const c = await newPaymentCase(market);
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
