// PostgreSQL crashes (immediate shutdown) and comes back ~3 s later while one production server
// takes a burst of writes, reads, sign-ins and payments. Nothing is lost and nothing is paid
// twice: every request answered 2xx is in the database afterwards; each payment ends settled
// exactly once on chain (the reconciler finishing what the outage interrupted); 503s, each with
// Retry-After, come only while the database was down, never a 500; the same server (no restart)
// writes again within seconds, its NOTIFY listener is back, and its webhook worker delivers the
// event of every job created. The database is a private cluster (dev/postgres-cluster.ts) so
// that stopping it touches nothing else on the machine.
import { createSiweMessage } from "viem/siwe";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresCluster } from "@/dev/postgres-cluster";
import { LISTENER_NAME } from "@/lib/db/commit-signal";
import { ApiClient } from "@/tests/helpers/api";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import {
  adminQuery,
  eventually,
  expectOutageAnswers,
  pause,
  Recorder,
  retryPause,
  startMigratedCluster,
  summarize,
} from "@/tests/helpers/chaos";
import { newPaymentCase, type PaymentCase } from "@/tests/helpers/market";
import { expectPaidOnceOrNotAtAll, type MoneySnapshot, snapshotMoney } from "@/tests/helpers/money";
import { type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { fetchChallenge, signPaymentHeader } from "@/tests/helpers/x402";

failOnServerErrors();

const WRITERS = 4;
const PAYMENTS = 8;
/** A request already waiting when the database came back may still get its 503 this late. */
const GRACE_MS = 5_000;

describe("PostgreSQL restarted (immediate) during a burst on one server", () => {
  let cluster: PostgresCluster;
  let databaseUrl: string;
  let server: RunningServer;
  let receiver: WebhookReceiver;
  // Its own chain: mining is paused to hold payments in flight when the database dies.
  let chain: TestChain;

  beforeAll(async () => {
    ({ cluster, databaseUrl } = await startMigratedCluster());
    chain = await startTestChain();
    receiver = await startWebhookReceiver();
    server = await startServer({
      DATABASE_URL: databaseUrl,
      CHAIN_RPC_URL: chain.rpcUrl,
      // A test server, so that the webhook worker may reach the receiver on loopback.
      NODE_ENV: "test",
      WEBHOOK_ALLOW_LOOPBACK: "true",
      WEBHOOK_WORKER_INTERVAL_MS: "200",
      WEBHOOK_RETRY_BASE_SECONDS: "0.2",
      WEBHOOK_TIMEOUT_SECONDS: "2",
      // Production's reconciler, only faster: a short real delay, never zero.
      SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "2",
      SETTLEMENT_RECONCILE_AFTER_SECONDS: "4",
      SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
      RATE_LIMIT_WRITES_PER_MINUTE: "100000",
      RATE_LIMIT_AUTH_PER_MINUTE: "100000",
    });
  });

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await chain?.stop();
    await cluster?.destroy();
  });

  it(
    "loses no acknowledged write, pays each job exactly once, and recovers by itself",
    {
      timeout: 180_000,
    },
    async () => {
      const rpcUrl = chain.rpcUrl;
      const market = { chain, server };
      const writers = await Promise.all(
        Array.from({ length: WRITERS }, () =>
          new ApiClient(server.url, privateKeyToAccount(generatePrivateKey())).signIn(),
        ),
      );
      const hook = await writers[0]!.post("/api/v1/webhooks", {
        url: receiver.url,
        types: ["job.created"],
      });
      expect(hook.status).toBe(200);
      receiver.secret = hook.body.data.secret;
      const payments: { c: PaymentCase; header: string; before: MoneySnapshot }[] = [];
      for (let i = 0; i < PAYMENTS; i++) {
        const c = await newPaymentCase(market, 3 + i / 100);
        const { paymentRequired } = await fetchChallenge(c.settleUrl());
        payments.push({
          c,
          header: await signPaymentHeader(c.payer, paymentRequired),
          before: await snapshotMoney(rpcUrl, c.payer.address, c.agentWallet),
        });
      }

      const recorder = new Recorder();
      const titles = new Map<string, string>(); // title → the id a 201 gave it
      const sentTitles: string[] = [];
      let stop = false;

      const write = async (client: ApiClient, n: number) => {
        for (let i = 0; !stop; i++) {
          const title = `chaos ${n}-${i}`;
          sentTitles.push(title);
          const { answer } = await recorder.send("write", () =>
            fetch(`${server.url}/api/v1/jobs`, {
              method: "POST",
              headers: { cookie: client.cookie!, "content-type": "application/json" },
              body: JSON.stringify({
                title,
                description: "written during a database restart",
                category: "data",
                budgetUsdc: 10,
                timelineDays: 1,
              }),
            }),
          );
          if (answer.status === 201) {
            titles.set(title, answer.id!);
            await recorder.send("read", () => fetch(`${server.url}/api/v1/jobs/${answer.id}`));
          } else if (answer.status === 503) await retryPause(answer, 250);
        }
      };
      const signIn = async () => {
        while (!stop) {
          const account = privateKeyToAccount(generatePrivateKey());
          const { answer, body } = await recorder.send("nonce", () =>
            fetch(`${server.url}/api/auth/nonce`),
          );
          if (answer.status !== 200) {
            await retryPause(answer, 250);
            continue;
          }
          const message = createSiweMessage({
            domain: new URL(server.url).host,
            address: account.address,
            statement: "Sign in to the Agent Marketplace.",
            uri: server.url,
            version: "1",
            chainId: 31337,
            nonce: body.data.nonce,
            issuedAt: new Date(),
          });
          const signature = await account.signMessage({ message });
          await recorder.send("sign-in", () =>
            fetch(`${server.url}/api/auth/verify`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ message, signature }),
            }),
          );
        }
      };
      /** As docs/payments.md tells a payer: on 503 or 409 settlement_pending, the same signature. */
      const pay = async ({ c, header }: (typeof payments)[number], what = "settle") => {
        const deadline = Date.now() + 120_000;
        while (Date.now() < deadline) {
          const { answer } = await recorder.send(what, () =>
            fetch(c.settleUrl(), { method: "POST", headers: { "PAYMENT-SIGNATURE": header } }),
          );
          if (answer.status === 200 || what === "settle once") return;
          if (answer.status !== 503 && answer.code !== "settlement_pending") return;
          await retryPause(answer);
        }
      };

      // Payments: some settle before the outage, some are cut by it (their transfers sent and
      // held in the node, mined while the database is down), the rest start during it. One cut
      // payer never comes back: only the server's reconciler can finish its payment.
      const [early, cut, late] = [payments.slice(0, 2), payments.slice(2, 5), payments.slice(5)];
      const burst = [...writers.map((client, n) => write(client, n)), signIn()];
      await Promise.all(early.map((payment) => pay(payment)));
      await chain.pauseMining();
      burst.push(pay(cut[0]!, "settle once"), ...cut.slice(1).map((payment) => pay(payment)));
      await eventually(
        async () => (await chain.pendingCount()) >= cut.length,
        "the cut payments' transfers in the node",
      );
      const downAt = Date.now();
      await cluster.stop("immediate");
      await chain.resumeMining();
      burst.push(...late.map((payment) => pay(payment)));
      await pause(3_000);
      await cluster.start();
      const upAt = Date.now();
      await pause(GRACE_MS + 3_000);
      stop = true;
      await Promise.all(burst);
      console.info(summarize(recorder, { downAt, upAt }));

      // Every answer: 2xx, or a 503 with Retry-After while the database was down, or (settle
      // only) 409 settlement_pending; never a 500 or a dropped connection.
      expectOutageAnswers(
        recorder.answers,
        { downAt, upAt },
        {
          graceMs: GRACE_MS,
          alsoAllowed: (answer) =>
            answer.what.startsWith("settle") && answer.code === "settlement_pending",
        },
      );
      const writes = recorder.of("write");
      expect(
        writes.some((answer) => answer.status === 503),
        "the outage was seen",
      ).toBe(true);
      const lateWrites = writes.filter((answer) => answer.sentAt > upAt + GRACE_MS);
      expect(lateWrites.length, "writes after the database came back").toBeGreaterThan(0);
      expect(lateWrites.every((answer) => answer.status === 201)).toBe(true);

      // Every acknowledged write is in the database; a row no 201 announced can only be a write
      // whose commit landed as the connection died (its client got a 503 and may re-read).
      const rows = await adminQuery<{ id: string; title: string }>(
        databaseUrl,
        `SELECT "id", "title" FROM "jobs" WHERE "title" LIKE 'chaos %'`,
      );
      const stored = new Map(rows.map((row) => [row.title, row.id]));
      for (const [title, id] of titles) expect(stored.get(title), title).toBe(id);
      const unannounced = rows.filter((row) => !titles.has(row.title));
      expect(unannounced.every((row) => sentTitles.includes(row.title))).toBe(true);
      expect(unannounced.length).toBeLessThanOrEqual(
        writes.filter((answer) => answer.status !== 201).length,
      );

      // Each payment: paid exactly once on chain, by the bid, to the agent, and recorded so.
      for (const { c, before } of payments) {
        expect(await expectPaidOnceOrNotAtAll(rpcUrl, server.url, c.job, before)).toBe("paid");
      }
      expect(recorder.of("settle").filter((answer) => answer.status === 200)).toHaveLength(
        PAYMENTS - 1,
      );
      // The payer who went away was cut mid-settlement (no 200), and was paid all the same.
      const [once] = recorder.of("settle once");
      expect([503, 409]).toContain(once!.status);

      // The background machinery came back without a restart: the NOTIFY listener is connected
      // again, and the webhook worker delivered the event of every job a 201 announced.
      await eventually(async () => {
        const listeners = await adminQuery(
          databaseUrl,
          "SELECT 1 FROM pg_stat_activity WHERE application_name = $1",
          [LISTENER_NAME],
        );
        return listeners.length === 1;
      }, "the commit listener to reconnect");
      const created = new Set(titles.values());
      await eventually(() => {
        const delivered = new Set(receiver.received.map((hit) => hit.payload?.data?.jobId));
        return [...created].every((id) => delivered.has(id));
      }, "a job.created webhook for every acknowledged job");
      expect(receiver.received.every((hit) => hit.verifyError === null)).toBe(true);
      // A sign-in works again (nonce and SIWE verify, both in the database).
      const again = await new ApiClient(
        server.url,
        privateKeyToAccount(generatePrivateKey()),
      ).signIn();
      expect(again.cookie).toBeDefined();
    },
  );
});
