// Many posters paying at once, each for a different job: every payment settles, on one server
// (the facilitator in the server's process) and on two servers sharing PostgreSQL and one
// facilitator service; also with the chain's mining paused mid-burst, and with the
// facilitator service killed mid-burst. Each payer's balance must fall by exactly its bid,
// once, and every job's payment must be recorded once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import {
  type FacilitatorProcess,
  startFacilitatorProcess,
  TEST_FACILITATOR_SECRET,
} from "@/tests/helpers/facilitator";
import { FaultProxy, path } from "@/tests/helpers/fault-proxy";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { newPaymentCase, type PaymentCase } from "@/tests/helpers/market";
import { expectPaidOnceOrNotAtAll, type MoneySnapshot, snapshotMoney } from "@/tests/helpers/money";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { payingFetch, payWaitingOnPending } from "@/tests/helpers/x402";
import { failOnServerErrors } from "@/tests/helpers/server-logs";

failOnServerErrors();

const PAYERS = 50;
const BUSY = { RATE_LIMIT_WRITES_PER_MINUTE: "100000", RATE_LIMIT_AUTH_PER_MINUTE: "100000" };

interface Burst {
  cases: PaymentCase[];
  before: MoneySnapshot[];
}

/** PAYERS payment cases with distinct bids, made ten at a time. */
async function prepareBurst(chain: TestChain, server: RunningServer): Promise<Burst> {
  const cases: PaymentCase[] = [];
  for (let start = 0; start < PAYERS; start += 10) {
    cases.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(10, PAYERS - start) }, (_, i) =>
          newPaymentCase({ chain, server }, (100 + start + i) / 100),
        ),
      )),
    );
  }
  const before = await Promise.all(
    cases.map((c) => snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet)),
  );
  return { cases, before };
}

/**
 * Every payer pays at the same moment, alternating over `urls`; returns the answers. With
 * `waitPending`, a payer told `409 settlement_pending` does what docs/payments.md says: waits
 * and sends the same PAYMENT-SIGNATURE again (never a new one), until the chain decides.
 */
async function fire(burst: Burst, urls: string[], { waitPending = false } = {}) {
  const responses = await Promise.all(
    burst.cases.map(async (c, i) => {
      const url = c.settleUrl(urls[i % urls.length]);
      if (waitPending) return payWaitingOnPending(c.payer, url);
      const response = await payingFetch(c.payer)(url, { method: "POST" });
      return { status: response.status, body: await response.json(), pending: 0 };
    }),
  );
  const pending = responses.reduce((sum, response) => sum + response.pending, 0);
  if (pending > 0) console.info(`${pending} answers were 409 settlement_pending or 503 busy`);
  return responses;
}

async function expectEveryPaymentOnce(chain: TestChain, baseUrl: string, burst: Burst) {
  const worlds = await Promise.all(
    burst.cases.map((c, i) =>
      expectPaidOnceOrNotAtAll(chain.rpcUrl, baseUrl, c.job, burst.before[i]!),
    ),
  );
  return worlds;
}

// Fifty payments with their mints and balance checks: minutes on a busy two-core machine.
const BURST_TIMEOUT = { timeout: 240_000 };

describe("50 posters paying 50 jobs at once on one server", BURST_TIMEOUT, () => {
  let chain: TestChain;
  let server: RunningServer;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    chain = await startTestChain();
    const database = await prepareServerDatabase(TEST_DATABASE_URL ? "postgres" : "pglite");
    cleanup = database.cleanup;
    server = await startServer({ ...database.env, ...BUSY, CHAIN_RPC_URL: chain.rpcUrl });
  });

  afterAll(async () => {
    await server?.stop();
    await chain?.stop();
    await cleanup?.();
  });

  it("settles every one: 50 × 200, 50 transfers, each payer down by its bid once", async () => {
    const burst = await prepareBurst(chain, server);
    const responses = await fire(burst, [server.url]);
    expect(
      responses.filter((r) => r.status !== 200),
      "refused or pending payments",
    ).toEqual([]);
    const hashes = new Set(responses.map((r) => r.body.data.txHash));
    expect(hashes.size).toBe(PAYERS);
    expect(new Set(await expectEveryPaymentOnce(chain, server.url, burst))).toEqual(
      new Set(["paid"]),
    );
  });

  it("settles every one with the chain's mining paused for 3 s in the middle", async () => {
    const burst = await prepareBurst(chain, server);
    const pause = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await chain.pauseMining();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await chain.resumeMining();
    })();
    // A payment whose receipt outlasts the server's wait answers 409 settlement_pending (the
    // contract's outcome for "sent, not yet confirmed"); its payer retries the same signature.
    const responses = await fire(burst, [server.url], { waitPending: true });
    await pause;
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);
    expect(new Set(await expectEveryPaymentOnce(chain, server.url, burst))).toEqual(
      new Set(["paid"]),
    );
  });
});

(TEST_DATABASE_URL ? describe : () => {})(
  "50 posters paying 50 jobs at once on two servers with one facilitator service",
  BURST_TIMEOUT,
  () => {
    let chain: TestChain;
    let facilitator: FacilitatorProcess;
    let facilitatorProxy: FaultProxy;
    let servers: RunningServer[];
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      chain = await startTestChain();
      facilitator = await startFacilitatorProcess({ CHAIN_RPC_URL: chain.rpcUrl });
      facilitatorProxy = await FaultProxy.start(facilitator.url);
      const database = await prepareServerDatabase("postgres");
      cleanup = database.cleanup;
      const env = {
        ...database.env,
        ...BUSY,
        CHAIN_RPC_URL: chain.rpcUrl,
        X402_FACILITATOR_URL: facilitatorProxy.url,
        FACILITATOR_SECRET: TEST_FACILITATOR_SECRET,
        SETTLEMENT_RECONCILE_AFTER_SECONDS: "5",
        SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
      };
      servers = [await startServer(env), await startServer(env)];
    });

    afterAll(async () => {
      await Promise.all((servers ?? []).map((server) => server.stop()));
      await facilitatorProxy?.close();
      await facilitator?.stop();
      await chain?.stop();
      await cleanup?.();
    });

    it("settles every one: 50 × 200, each payer down by its bid once", async () => {
      const burst = await prepareBurst(chain, servers[0]!);
      const responses = await fire(
        burst,
        servers.map((server) => server.url),
      );
      expect(responses.filter((r) => r.status !== 200)).toEqual([]);
      expect(new Set(await expectEveryPaymentOnce(chain, servers[0]!.url, burst))).toEqual(
        new Set(["paid"]),
      );
    });

    it("the facilitator killed mid-burst: no double payment; all settle or are cleanly refused, then pay", async () => {
      const burst = await prepareBurst(chain, servers[0]!);
      // Mining paused: settlements wait for receipts inside the facilitator, so the kill lands
      // with many of them in flight (some sent, some not yet).
      await chain.pauseMining();
      const settlesBefore = facilitatorProxy.seen.filter(path("/settle")).length;
      const settles = () => facilitatorProxy.seen.filter(path("/settle")).length - settlesBefore;
      let killedAt = 0;
      const killed = (async () => {
        while (settles() < 20) await new Promise((resolve) => setTimeout(resolve, 20));
        killedAt = settles();
        await facilitator.kill();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        facilitator = await startFacilitatorProcess({ CHAIN_RPC_URL: chain.rpcUrl });
        facilitatorProxy.setUpstream(facilitator.url);
        await chain.resumeMining();
      })();
      const responses = await fire(
        burst,
        servers.map((server) => server.url),
      );
      await killed;
      const statuses = responses.map((r) => r.status);
      const tally = statuses.reduce<Record<number, number>>(
        (counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }),
        {},
      );
      console.info(
        `facilitator killed with ${killedAt} settles sent to it; answers: ${JSON.stringify(tally)}`,
      );
      expect(
        statuses.every((status) => [200, 409, 503].includes(status)),
        `${statuses}`,
      ).toBe(true);
      for (const response of responses) {
        if (response.status === 409) expect(response.body.code).toBe("settlement_pending");
        if (response.status === 503) expect(response.body.code).toBe("facilitator_unavailable");
      }
      // Once the service is back, the reconcilers settle what was in flight; the rest pay again.
      const worlds = await expectEveryPaymentOnce(chain, servers[0]!.url, burst);
      const unpaid = burst.cases.filter((_, i) => worlds[i] === "unpaid");
      for (const c of unpaid) {
        const retry = await payingFetch(c.payer)(c.settleUrl(servers[1]!.url), { method: "POST" });
        expect(retry.status).toBe(200);
      }
      expect(new Set(await expectEveryPaymentOnce(chain, servers[0]!.url, burst))).toEqual(
        new Set(["paid"]),
      );
    });
  },
);
