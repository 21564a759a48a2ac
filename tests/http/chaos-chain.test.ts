// The chain's RPC cut off (every connection refused, as when the node or its network is down)
// under a running server settling with its own key: a payment answers 503 with Retry-After and
// nothing is recorded or moved (never a 402 that would send the payer to sign again for
// nothing), the faucet answers 503, the rest of the API works, and once the RPC is back the
// very same signature pays, once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "@/dev/tcp-proxy";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import { validJobBody } from "@/tests/helpers/fixtures";
import { newPaymentCase } from "@/tests/helpers/market";
import { expectPaidOnceOrNotAtAll, snapshotMoney } from "@/tests/helpers/money";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";
import { fetchChallenge, signPaymentHeader } from "@/tests/helpers/x402";

failOnServerErrors();

const KIND = TEST_DATABASE_URL ? "postgres" : "pglite";

describe("the chain's RPC cut off under a running server", () => {
  let chain: TestChain;
  let proxy: TcpProxy;
  let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
  let server: RunningServer;

  beforeAll(async () => {
    chain = await startTestChain();
    proxy = await startTcpProxy({ port: chain.port });
    database = await prepareServerDatabase(KIND);
    server = await startServer({
      ...database.env,
      CHAIN_RPC_URL: `http://127.0.0.1:${proxy.port}`,
      RATE_LIMIT_WRITES_PER_MINUTE: "100000",
    });
  });

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await chain?.stop();
    await database?.cleanup();
  });

  it("payments answer 503 and charge nothing; the same signature pays once it is back", async () => {
    const c = await newPaymentCase({ chain, server });
    const before = await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet);
    const { paymentRequired } = await fetchChallenge(c.settleUrl());
    const header = await signPaymentHeader(c.payer, paymentRequired);

    proxy.partition("drop");
    try {
      const settle = await fetch(c.settleUrl(), {
        method: "POST",
        headers: { "PAYMENT-SIGNATURE": header },
      });
      expect(settle.status).toBe(503);
      expect(["facilitator_unavailable", "chain_unavailable"]).toContain(
        (await settle.json()).code,
      );
      expect(settle.headers.get("retry-after")).toMatch(/^\d+$/);
      expect((await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data).toBeNull();
      const faucet = await fetch(`${server.url}/api/dev/faucet`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ address: c.payer.address, amountUsdc: 1 }),
      });
      expect(faucet.status).toBe(503);
      expect(faucet.headers.get("retry-after")).toMatch(/^\d+$/);
      // What needs no chain goes on.
      expect((await c.poster.post("/api/v1/jobs", validJobBody())).status).toBe(201);
    } finally {
      proxy.heal();
    }
    expect(await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet)).toEqual(before);

    const paid = await fetch(c.settleUrl(), {
      method: "POST",
      headers: { "PAYMENT-SIGNATURE": header },
    });
    expect(paid.status).toBe(200);
    expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before)).toBe("paid");
  });
});
