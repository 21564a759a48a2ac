// Webhook deliveries over real HTTP: the app server (a test server, NODE_ENV=test, so that
// WEBHOOK_ALLOW_LOOPBACK may let it reach a receiver on 127.0.0.1) posts signed messages that
// the receiver verifies with the standardwebhooks library; retries with a short backoff
// (WEBHOOK_RETRY_BASE_SECONDS=0.2, a 4 s window; production's schedule is in the README);
// disabled after the window; the test message; and, on PostgreSQL, two servers sharing the
// database deliver each event once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApiClient } from "@/tests/helpers/api";
import { TEST_DATABASE_URL } from "@/tests/helpers/db";
import {
  BUSY_TEST_SERVER_ENV,
  createJob,
  expectStatus,
  registerAgent,
  sameSessionOn,
  signedInClient,
  submitProposal,
} from "@/tests/helpers/fixtures";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";

const SERVER_ENV = {
  ...BUSY_TEST_SERVER_ENV,
  NODE_ENV: "test",
  WEBHOOK_ALLOW_LOOPBACK: "true",
  WEBHOOK_WORKER_INTERVAL_MS: "100",
  WEBHOOK_RETRY_BASE_SECONDS: "0.2",
  WEBHOOK_RETRY_WINDOW_SECONDS: "4",
  WEBHOOK_TIMEOUT_SECONDS: "2",
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function subscribe(client: ApiClient, receiver: WebhookReceiver, fields = {}) {
  const created = expectStatus(
    await client.post("/api/v1/webhooks", { url: receiver.url, ...fields }),
    200,
    "create webhook",
  ).data;
  receiver.secret = created.secret;
  return created as { id: string; secret: string };
}

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(50);
  }
}

describe("webhooks from one server (PGlite)", () => {
  let server: RunningServer;
  let cleanup: (() => Promise<void>) | undefined;
  let poster: ApiClient;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const database = await prepareServerDatabase("pglite");
    cleanup = database.cleanup;
    server = await startServer({ ...database.env, ...SERVER_ENV });
    poster = await signedInClient(server.url);
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.stop();
    await cleanup?.();
  });
  beforeEach(async () => {
    await receiver?.close();
    receiver = await startWebhookReceiver();
  });

  it("posts each matching event once, signed the Standard Webhooks way, and logs it", async () => {
    const hook = await subscribe(poster, receiver, {
      types: ["job.created", "proposal.submitted"],
    });
    expect(hook.secret).toMatch(/^whsec_/);
    const job = await createJob(poster);
    const operator = await signedInClient(server.url);
    const agent = await registerAgent(operator);
    await submitProposal(operator, job.id, agent.id);
    // Sent in parallel: no order promised; the event id orders them.
    const hits = [...(await receiver.waitFor(2))].sort(
      (a, b) => Number(a.payload?.data.eventId) - Number(b.payload?.data.eventId),
    );
    await pause(500);
    expect(receiver.received).toHaveLength(2);
    expect(
      hits.map((hit) => [hit.verifyError, hit.payload?.type, hit.payload?.data.jobId]),
    ).toEqual([
      [null, "job.created", job.id],
      [null, "proposal.submitted", job.id],
    ]);
    expect(hits[0]!.id).toBe(`evt_${hits[0]!.payload.data.eventId}`);
    expect(receiver.headersOf(0)["user-agent"]).toMatch(/AgentMarketplace-Webhooks/);

    const log = expectStatus(
      await poster.get(`/api/v1/webhooks/${hook.id}/deliveries?limit=1`),
      200,
    );
    // Newest first: the later event's message.
    expect(log.data).toEqual([
      expect.objectContaining({
        messageId: hits[1]!.id,
        type: "proposal.submitted",
        status: "succeeded",
        attempts: 1,
        lastStatusCode: 200,
        attemptLog: [expect.objectContaining({ attempt: 1, statusCode: 200 })],
      }),
    ]);
    expect(log.meta.nextCursor).toEqual(expect.any(String));
    expectStatus(await poster.request("DELETE", `/api/v1/webhooks/${hook.id}`), 200);
  });

  it("a receiver that fails twice then succeeds gets the event exactly once more", async () => {
    const hook = await subscribe(poster, receiver);
    receiver.answers = [500, 502];
    await createJob(poster);
    await receiver.waitFor(3);
    // Longer than the next retry would have come after another failure.
    await pause(2_000);
    expect(receiver.received.map((hit) => [hit.answered, hit.verifyError])).toEqual([
      [500, null],
      [502, null],
      [200, null],
    ]);
    expect(new Set(receiver.received.map((hit) => hit.id)).size).toBe(1);
    const [delivery] = expectStatus(
      await poster.get(`/api/v1/webhooks/${hook.id}/deliveries`),
      200,
    ).data;
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 3, lastStatusCode: 200 });
    expect(delivery!.attemptLog.map((attempt) => attempt.statusCode)).toEqual([500, 502, 200]);
    expectStatus(await poster.request("DELETE", `/api/v1/webhooks/${hook.id}`), 200);
  });

  it("is disabled after failing for the whole retry window, and then gets nothing", async () => {
    const hook = await subscribe(poster, receiver);
    receiver.otherwise = 503;
    await createJob(poster);
    await until(
      async () => (await poster.get(`/api/v1/webhooks/${hook.id}`)).body.data.status === "disabled",
      "the webhook to be disabled",
    );
    const shown = expectStatus(await poster.get(`/api/v1/webhooks/${hook.id}`), 200).data;
    expect(shown.disabledReason).toMatch(/failed for 4 s \(\d+ attempts; last: answered 503\)/);
    const attempts = receiver.received.length;
    expect(attempts).toBeGreaterThanOrEqual(4);
    receiver.otherwise = 200;
    await createJob(poster);
    await pause(1_500);
    expect(receiver.received).toHaveLength(attempts);
    // Enabled again, it delivers what happens from then on.
    const enabled = expectStatus(await poster.post(`/api/v1/webhooks/${hook.id}/enable`), 200);
    expect(enabled.data).toMatchObject({ status: "active", disabledReason: null });
    const later = await createJob(poster);
    const hits = await receiver.waitFor(attempts + 1);
    expect(hits.at(-1)).toMatchObject({
      verifyError: null,
      payload: { data: { jobId: later.id } },
    });
    await pause(500);
    expect(receiver.received).toHaveLength(attempts + 1);
    expectStatus(await poster.request("DELETE", `/api/v1/webhooks/${hook.id}`), 200);
  });

  it("sends a signed test message on demand and answers with its delivery", async () => {
    const hook = await subscribe(poster, receiver);
    const sent = expectStatus(await poster.post(`/api/v1/webhooks/${hook.id}/test`), 200).data;
    expect(sent).toMatchObject({ type: "webhook.test", status: "succeeded", attempts: 1 });
    const [hit] = await receiver.waitFor(1);
    expect(hit).toMatchObject({ id: sent.messageId, verifyError: null });
    expect(hit!.payload).toMatchObject({ type: "webhook.test", data: { webhookId: hook.id } });
    receiver.otherwise = 500;
    const failed = expectStatus(await poster.post(`/api/v1/webhooks/${hook.id}/test`), 200).data;
    expect(failed).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 500 });
    expectStatus(await poster.request("DELETE", `/api/v1/webhooks/${hook.id}`), 200);
  });
});

if (TEST_DATABASE_URL) {
  describe("webhooks from two servers on one PostgreSQL", () => {
    const servers: RunningServer[] = [];
    let cleanup: (() => Promise<void>) | undefined;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      const database = await prepareServerDatabase("postgres");
      cleanup = database.cleanup;
      for (let i = 0; i < 2; i++)
        servers.push(await startServer({ ...database.env, ...SERVER_ENV }));
      receiver = await startWebhookReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      for (const server of servers) await server.stop();
      await cleanup?.();
    });

    it("deliver each event exactly once", async () => {
      const [a, b] = servers as [RunningServer, RunningServer];
      const posterA = await signedInClient(a.url);
      const posterB = sameSessionOn(posterA, b.url);
      await subscribe(posterA, receiver);
      receiver.answers = [500]; // one retry in the mix
      const jobs = 20;
      const ids = new Set<string>();
      for (let i = 0; i < jobs; i++) ids.add((await createJob(i % 2 ? posterA : posterB)).id);
      await until(
        () => receiver.received.filter((hit) => hit.answered === 200).length >= jobs,
        `${jobs} deliveries`,
        60_000,
      );
      await pause(2_000);
      const delivered = receiver.received.filter((hit) => hit.answered === 200);
      expect(delivered).toHaveLength(jobs);
      expect(new Set(delivered.map((hit) => hit.id)).size).toBe(jobs);
      expect(new Set(delivered.map((hit) => hit.payload?.data.jobId))).toEqual(ids);
      expect(receiver.received).toHaveLength(jobs + 1);
      expect(receiver.received.every((hit) => hit.verifyError === null)).toBe(true);
    });
  });
}
