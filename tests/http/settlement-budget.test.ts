// The work one payment costs the server, counted (never timed): database queries and chain
// JSON-RPC calls by method for the challenge and for the paid request, pay-now and protected,
// over the real HTTP path on PostgreSQL. Issue 27: the payment burst is held to the chain's own
// rate, and what limited it was the server's work per payment (31 queries, 14 to 16 chain calls
// and 3 signature recoveries for a pay-now payment); these budgets keep it from creeping back.
// Queries come from the Server-Timing header of a BENCHMARK_MODE test server (every round-trip
// its pg pool makes for the request); chain calls are counted at a proxy between the server and
// the chain, by method, while the request runs.
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newPaymentCase } from "@/tests/helpers/market";
import {
  BALANCE_WATCH_METHOD,
  type ProxiedChainServer,
  startProxiedChainServer,
} from "@/tests/helpers/proxied-chain";
import { failOnServerErrors } from "@/tests/helpers/server-logs";
import { payingFetch } from "@/tests/helpers/x402";

failOnServerErrors();

/** What one request cost: its queries, and the chain calls made meanwhile by method. */
interface Cost {
  queries: number;
  calls: Record<string, number>;
  /** Each chain call in order, with its parameters (what a failure shows). */
  sequence: string[];
}

/**
 * Each request's budget: queries at most, chain calls at most (all methods), and at most so
 * many of the methods named. The paid request's figures, and where they come from:
 *   queries: 2 rate-limit counters (lib/api), the target and ledger read (1), the claim (BEGIN,
 *     its one statement, COMMIT: 3), the hash before the broadcast (1), succeeded with its event
 *     (BEGIN, UPDATE ... RETURNING, the event's facts, the event, COMMIT: 5); a protected
 *     payment's hold (1 more);
 *   chain: the payer's code (1, at verify; settle finds it kept), the simulation that
 *     is also the gas estimate (1), the fee estimate (2, kept for a second, so not every time),
 *     the claim's block number (1), the key's nonce (1, once per run of sends), the broadcast
 *     (1), the receipt watcher's head and the receipt (2). No eth_call: the simulation is the
 *     estimate, and the receipt in hand shows the transfer (no authorizationState, no second
 *     receipt).
 */
interface Budget {
  queries: number;
  calls: number;
  byMethod?: Record<string, number>;
}

const CHALLENGE: Budget = { queries: 2, calls: 0 };
const PAY_NOW: Budget = {
  queries: 12,
  calls: 9,
  byMethod: {
    eth_call: 0,
    eth_getCode: 1,
    eth_estimateGas: 1,
    eth_sendRawTransaction: 1,
    eth_getTransactionReceipt: 1,
  },
};
// The chain's clock for the deadlines (eth_getBlockByNumber).
const PROTECTED_CHALLENGE: Budget = { queries: 2, calls: 1 };
const PROTECTED: Budget = {
  queries: 13,
  calls: 9,
  byMethod: {
    eth_call: 0,
    eth_estimateGas: 1,
    eth_sendRawTransaction: 1,
    eth_getTransactionReceipt: 1,
  },
};

/** The background's own calls (the gas keys' balance watch), not the request's. */
const BACKGROUND = new Set([BALANCE_WATCH_METHOD]);

function queriesOf(response: Response): number {
  const header = response.headers.get("server-timing") ?? "";
  const queries = /db;[^,]*desc="(\d+) queries"/.exec(header)?.[1];
  if (queries === undefined) throw new Error(`no Server-Timing query count in "${header}"`);
  return Number(queries);
}

function expectWithin(cost: Cost | undefined, budget: Budget, what: string) {
  if (!cost) throw new Error(`${what}: not measured`);
  const total = Object.values(cost.calls).reduce((sum, n) => sum + n, 0);
  const detail = `${what}: ${cost.queries} queries, chain calls ${JSON.stringify(cost.calls)}, in order: ${cost.sequence.join(" ")}`;
  expect(cost.queries, detail).toBeLessThanOrEqual(budget.queries);
  expect(total, detail).toBeLessThanOrEqual(budget.calls);
  for (const [method, most] of Object.entries(budget.byMethod ?? {})) {
    expect(cost.calls[method] ?? 0, `${detail}: ${method}`).toBeLessThanOrEqual(most);
  }
}

describe("what one payment costs the server (PostgreSQL)", () => {
  let market: ProxiedChainServer;

  beforeAll(async () => {
    market = await startProxiedChainServer("postgres", {
      NODE_ENV: "test",
      BENCHMARK_MODE: "true",
      RATE_LIMIT_WRITES_PER_MINUTE: "100000",
      RATE_LIMIT_AUTH_PER_MINUTE: "100000",
      // The background reconciler's passes (every 10 s by default, each reading the chain's
      // clock) are not the request's cost; one that fell inside a request's window was counted
      // as the request's (a CI run: 10 calls, one eth_getBlockByNumber "latest" too many).
      SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "0",
    });
  }, 180_000);

  afterAll(() => market?.stop());

  /** A fetch that notes what each request cost, in order. */
  function measuring(costs: Cost[]): typeof fetch {
    return async (input, init) => {
      const from = market.proxy.seen.length;
      const response = await fetch(input, init);
      const calls: Record<string, number> = {};
      const sequence: string[] = [];
      for (const seen of market.proxy.seen.slice(from)) {
        for (const { method, params } of seen.rpcCalls) {
          if (BACKGROUND.has(method)) continue;
          calls[method] = (calls[method] ?? 0) + 1;
          sequence.push(`${method}${JSON.stringify(params ?? []).slice(0, 60)}`);
        }
      }
      costs.push({ queries: queriesOf(response), calls, sequence });
      return response;
    };
  }

  /** Pays a new case now (x402's paying fetch), answering what each request cost. */
  async function payNow(): Promise<Cost[]> {
    const c = await newPaymentCase(market);
    const costs: Cost[] = [];
    const response = await payingFetch(c.payer, measuring(costs))(c.settleUrl(), {
      method: "POST",
    });
    expect(response.status, await response.text()).toBe(200);
    return costs;
  }

  /** Pays a new case protected (x402's auth-capture client), answering what each request cost. */
  async function payProtected(): Promise<Cost[]> {
    const c = await newPaymentCase(market);
    const costs: Cost[] = [];
    const fetchMeasured = measuring(costs);
    const url = `${c.settleUrl()}&mode=escrow`;
    const challenge = await fetchMeasured(url, { method: "POST" });
    expect(challenge.status).toBe(402);
    const required = decodePaymentRequiredHeader(challenge.headers.get("payment-required")!);
    const accepted = required.accepts[0]!;
    const { payload } = await new AuthCaptureEvmScheme(c.payer).createPaymentPayload(2, accepted);
    const paid = await fetchMeasured(url, {
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
    expect(paid.status, await paid.text()).toBe(200);
    return costs;
  }

  it("a pay-now payment: the challenge at most 2 queries and no chain call; paid, at most 12 queries and 9 chain calls, none an eth_call", async () => {
    await payNow(); // first: the route compiled, the token's code known
    const [challenge, paid] = await payNow();
    expectWithin(challenge, CHALLENGE, "challenge");
    expectWithin(paid, PAY_NOW, "paid");
  });

  it("a protected payment: the challenge at most 2 queries and 1 chain call; paid, at most 13 queries and 9 chain calls, none an eth_call", async () => {
    await payProtected();
    const [challenge, paid] = await payProtected();
    expectWithin(challenge, PROTECTED_CHALLENGE, "challenge");
    expectWithin(paid, PROTECTED, "paid");
  });
});
