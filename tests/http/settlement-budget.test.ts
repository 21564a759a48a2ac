// The work one payment costs the server, counted (never timed): database queries and chain
// JSON-RPC calls for the challenge and for the paid request, pay-now and protected, over the
// real HTTP path on PostgreSQL. Issue 27: the payment burst is held to the chain's own rate,
// and what limits it is the server's work per payment; these budgets keep it from creeping
// back. Queries come from the Server-Timing header of a BENCHMARK_MODE test server (every
// round-trip the pg pool makes for the request); chain calls are counted by method at a proxy
// between the server and the chain.
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { AuthCaptureEvmScheme } from "@x402/evm-authcapture/auth-capture/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FaultProxy } from "@/tests/helpers/fault-proxy";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { newPaymentCase } from "@/tests/helpers/market";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";
import { payingFetch } from "@/tests/helpers/x402";

failOnServerErrors();

interface Cost {
  queries: number;
  chainCalls: number;
  /** The chain calls the proxy saw meanwhile, by JSON-RPC method. */
  byMethod: Record<string, number>;
}

/** `total;dur=..., db;dur=..;desc="N queries", chain;dur=..;desc="M calls"` */
function serverTiming(response: Response): { queries: number; chainCalls: number } {
  const header = response.headers.get("server-timing") ?? "";
  const queries = /db;[^,]*desc="(\d+) queries"/.exec(header)?.[1];
  const calls = /chain;[^,]*desc="(\d+) calls"/.exec(header)?.[1];
  if (queries === undefined || calls === undefined) {
    throw new Error(`no Server-Timing counts in "${header}"`);
  }
  return { queries: Number(queries), chainCalls: Number(calls) };
}

describe("what one payment costs the server (PostgreSQL)", () => {
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
      NODE_ENV: "test",
      BENCHMARK_MODE: "true",
      CHAIN_RPC_URL: proxy.url,
      RATE_LIMIT_WRITES_PER_MINUTE: "100000",
      RATE_LIMIT_AUTH_PER_MINUTE: "100000",
    });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await chain?.stop();
    await cleanup?.();
  });

  /** Each request of one payment (challenge, then paid), with the chain calls seen meanwhile. */
  async function measure(pay: (fetchFn: typeof fetch) => Promise<number>) {
    const costs: Cost[] = [];
    const measuring: typeof fetch = async (input, init) => {
      const from = proxy.seen.length;
      const t0 = new Date().toISOString();
      const response = await fetch(input, init);
      console.info(`WINDOW ${t0} ${new Date().toISOString()}`);
      const byMethod: Record<string, number> = {};
      for (const seen of proxy.seen.slice(from)) {
        for (const method of seen.rpcMethods) byMethod[method] = (byMethod[method] ?? 0) + 1;
      }
      costs.push({ ...serverTiming(response), byMethod });
      return response;
    };
    const status = await pay(measuring);
    return { status, costs };
  }

  const payNow = async () => {
    const c = await newPaymentCase({ chain, server });
    return measure(async (fetchFn) => {
      const response = await payingFetch(c.payer, fetchFn)(c.settleUrl(), { method: "POST" });
      await response.arrayBuffer();
      return response.status;
    });
  };

  const payEscrow = async () => {
    const c = await newPaymentCase({ chain, server });
    return measure(async (fetchFn) => {
      const url = `${c.settleUrl()}&mode=escrow`;
      const challenge = await fetchFn(url, { method: "POST" });
      await challenge.arrayBuffer();
      const required = decodePaymentRequiredHeader(challenge.headers.get("payment-required")!);
      const accepted = required.accepts[0]!;
      const { payload } = await new AuthCaptureEvmScheme(c.payer).createPaymentPayload(
        2,
        accepted,
      );
      const paid = await fetchFn(url, {
        method: "POST",
        headers: {
          "PAYMENT-SIGNATURE": encodePaymentSignatureHeader({
            x402Version: 2,
            resource: required.resource,
            accepted,
            payload,
          }),
        },
      });
      await paid.arrayBuffer();
      return paid.status;
    });
  };

  it("pay now", async () => {
    await payNow(); // warm: routes compiled, the token's code known
    const { status, costs } = await payNow();
    expect(status).toBe(200);
    console.info(`pay now: ${JSON.stringify(costs, null, 1)}`);
  });

  it("protected", async () => {
    await payEscrow();
    const { status, costs } = await payEscrow();
    expect(status).toBe(200);
    console.info(`protected: ${JSON.stringify(costs, null, 1)}`);
  });
});
