// The facilitator service (`npm run facilitator`, its own process, as beside several app
// servers) is killed with SIGKILL in the middle of a burst of payments and started again on
// the same port. Some payments die with it after their transfer was broadcast, some before
// their verify was answered, some arrive while it is down. Every payment still ends settled
// exactly once on chain (the app server's reconciler finishing what nobody came back for),
// nobody is charged twice, and every answer on the way is a 200, a 409 settlement_pending, or
// a 503 with Retry-After while the facilitator was down: never a 500 or a 402.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/dev/free-port";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import {
  eventually,
  expectOutageAnswers,
  pause,
  Recorder,
  retryPause,
  summarize,
} from "@/tests/helpers/chaos";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import {
  type FacilitatorProcess,
  startFacilitatorProcess,
  TEST_FACILITATOR_SECRET,
} from "@/tests/helpers/facilitator";
import { newPaymentCase, type PaymentCase } from "@/tests/helpers/market";
import { expectPaidOnceOrNotAtAll, type MoneySnapshot, snapshotMoney } from "@/tests/helpers/money";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";
import { fetchChallenge, signPaymentHeader } from "@/tests/helpers/x402";

failOnServerErrors();

const KIND = TEST_DATABASE_URL ? "postgres" : "pglite";
const FIRST_WAVE = 6;
const SECOND_WAVE = 4;
/** A payment already waiting on the dead facilitator may still get its 503 this late. */
const GRACE_MS = 8_000;

describe("the facilitator service killed (SIGKILL) and restarted mid-burst", () => {
  let chain: TestChain;
  let facilitator: FacilitatorProcess;
  let facilitatorEnv: Record<string, string>;
  let database: Awaited<ReturnType<typeof prepareServerDatabase>>;
  let server: RunningServer;

  beforeAll(async () => {
    chain = await startTestChain();
    facilitatorEnv = {
      CHAIN_RPC_URL: chain.rpcUrl,
      SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "2",
      // Started again on the same port: the app servers keep their X402_FACILITATOR_URL.
      FACILITATOR_PORT: String(await freePort()),
    };
    facilitator = await startFacilitatorProcess(facilitatorEnv);
    database = await prepareServerDatabase(KIND);
    server = await startServer({
      ...database.env,
      CHAIN_RPC_URL: chain.rpcUrl,
      X402_FACILITATOR_URL: facilitator.url,
      FACILITATOR_SECRET: TEST_FACILITATOR_SECRET,
      // Bounds how long a settlement counts as in flight (twice this + 15 s) before the
      // reconciler may send its authorization again.
      FACILITATOR_TIMEOUT_SECONDS: "6",
      SETTLEMENT_RECONCILE_AFTER_SECONDS: "4",
      SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
      RATE_LIMIT_WRITES_PER_MINUTE: "100000",
      RATE_LIMIT_AUTH_PER_MINUTE: "100000",
    });
  });

  afterAll(async () => {
    await server?.stop();
    await facilitator?.stop();
    await chain?.stop();
    await database?.cleanup();
  });

  it("settles every payment exactly once, none charged twice", { timeout: 180_000 }, async () => {
    const market = { chain, server };
    const payments: { c: PaymentCase; header: string; before: MoneySnapshot }[] = [];
    for (let i = 0; i < FIRST_WAVE + SECOND_WAVE; i++) {
      const c = await newPaymentCase(market, 4 + i / 100);
      const { paymentRequired } = await fetchChallenge(c.settleUrl());
      payments.push({
        c,
        header: await signPaymentHeader(c.payer, paymentRequired),
        before: await snapshotMoney(chain.rpcUrl, c.payer.address, c.agentWallet),
      });
    }

    const recorder = new Recorder();
    /** As docs/payments.md tells a payer: on 503 or 409 settlement_pending, the same signature. */
    const pay = async ({ c, header }: (typeof payments)[number], what = "settle") => {
      const deadline = Date.now() + 150_000;
      while (Date.now() < deadline) {
        const { answer } = await recorder.send(what, () =>
          fetch(c.settleUrl(), { method: "POST", headers: { "PAYMENT-SIGNATURE": header } }),
        );
        if (answer.status === 200 || what === "settle once") return;
        if (answer.status !== 503 && answer.code !== "settlement_pending") return;
        await retryPause(answer);
      }
    };

    // The first wave's transfers are broadcast and held in the node (mining paused) when the
    // facilitator dies waiting for their receipts. One of those payers never comes back, and
    // mining resumes only once it has its answer: only the reconciler can finish its payment.
    const [first, second] = [payments.slice(0, FIRST_WAVE), payments.slice(FIRST_WAVE)];
    await chain.pauseMining();
    const once = pay(first[0]!, "settle once");
    const burst = [
      once,
      ...first.slice(1).map((payment, i) => pause(150 * (i + 1)).then(() => pay(payment))),
    ];
    await eventually(async () => (await chain.pendingCount()) >= 3, "transfers in the node");
    const downAt = Date.now();
    await facilitator.kill();
    burst.push(...second.map((payment, i) => pause(200 * i).then(() => pay(payment))));
    await once;
    await chain.resumeMining();
    await pause(2_000);
    facilitator = await startFacilitatorProcess(facilitatorEnv);
    const upAt = Date.now();
    await Promise.all(burst);
    console.info(summarize(recorder, { downAt, upAt }));

    expectOutageAnswers(
      recorder.answers,
      { downAt, upAt },
      {
        graceMs: GRACE_MS,
        alsoAllowed: (answer) => answer.code === "settlement_pending",
      },
    );
    expect(
      recorder.answers.some((answer) => answer.status === 503 || answer.status === 409),
      "the outage was seen",
    ).toBe(true);
    for (const { c, before } of payments) {
      expect(await expectPaidOnceOrNotAtAll(chain.rpcUrl, server.url, c.job, before)).toBe("paid");
    }
    expect(recorder.of("settle").filter((answer) => answer.status === 200)).toHaveLength(
      payments.length - 1,
    );
    expect(recorder.of("settle once").map((answer) => answer.code)).toEqual(["settlement_pending"]);
  });
});
