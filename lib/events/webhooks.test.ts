// Webhooks in-process: subscriptions, the fan-out of events to matching subscriptions, signed
// deliveries verified by a receiver with the standardwebhooks library, retries with backoff
// (short here: WEBHOOK_RETRY_BASE_SECONDS=0.1, a 2 s window), disabling after the window,
// test messages, the delivery log, and (on PostgreSQL) two workers delivering each event once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Address } from "viem";
import { DomainError } from "@/lib/platform/errors";
import { createJob } from "@/lib/marketplace/jobs";
import { registerAgent } from "@/lib/marketplace/agents";
import { submitProposal } from "@/lib/marketplace/proposals";
import { createWebhookSchema } from "@/lib/shared/schemas/webhooks";
import { openDatabase } from "@/lib/db/client";
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "@/tests/helpers/db";
import { agentInput, jobInput, newWallet, proposalInput } from "@/tests/helpers/in-process";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { nextAttemptAt, runWebhookWorkerOnce } from "./webhook-worker";
import {
  createWebhook,
  deleteWebhook,
  enableWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  sendTestEvent,
} from "./webhooks";
import type { Db } from "@/lib/db";

const ENV = {
  WEBHOOK_ALLOW_LOOPBACK: "true",
  WEBHOOK_RETRY_BASE_SECONDS: "0.1",
  WEBHOOK_RETRY_WINDOW_SECONDS: "2",
  WEBHOOK_TIMEOUT_SECONDS: "1",
  WEBHOOK_WORKER_INTERVAL_MS: "0",
};

let database: TestDatabase;
let db: Db;
let receiver: WebhookReceiver;
const owner = newWallet().address;
const poster = newWallet().address;
const operator = newWallet().address;

beforeAll(async () => {
  Object.assign(process.env, ENV);
  database = await createTestDatabase("pglite");
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});
beforeEach(async () => {
  await receiver?.close();
  receiver = await startWebhookReceiver();
});

async function subscribe(fields: Record<string, unknown> = {}, wallet: Address = owner) {
  const created = await createWebhook(
    db,
    wallet,
    createWebhookSchema.parse({ url: receiver.url, ...fields }),
  );
  receiver.secret = created.secret;
  return created;
}

/** Runs worker passes until `done` holds (or fails after `timeoutMs`). */
async function drive(done: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await runWebhookWorkerOnce(db);
    if (await done()) return;
    if (Date.now() > deadline) throw new Error("the webhook worker did not get there in time");
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${error}`);
  return { status: error.status, message: error.message };
}

describe("subscriptions", () => {
  it("creates one with a whsec_ secret shown once, lists and deletes the owner's own only", async () => {
    const created = await subscribe({
      types: ["job.created", "job.created"],
      categories: ["data"],
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^wh_/),
      url: receiver.url,
      types: ["job.created"],
      categories: ["data"],
      status: "active",
      disabledReason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const listed = await listWebhooks(db, owner);
    expect(listed.find((hook) => hook.id === created.id)).not.toHaveProperty("secret");
    expect(await getWebhook(db, owner, created.id)).not.toHaveProperty("secret");

    const stranger = newWallet().address;
    expect(await listWebhooks(db, stranger)).toEqual([]);
    for (const call of [
      getWebhook(db, stranger, created.id),
      deleteWebhook(db, stranger, created.id),
      sendTestEvent(db, stranger, created.id),
      enableWebhook(db, stranger, created.id),
      listDeliveries(db, stranger, created.id, { limit: 10 }),
    ]) {
      expect(await refusal(call)).toEqual({
        status: 404,
        message: `webhook ${created.id} not found`,
      });
    }
    expect((await deleteWebhook(db, owner, created.id)).id).toBe(created.id);
    expect((await refusal(getWebhook(db, owner, created.id))).status).toBe(404);
  });

  it("refuses a URL the SSRF rules refuse (400) and more than 20 per wallet (409)", async () => {
    for (const url of ["http://10.0.0.1/hook", "https://169.254.169.254/", "http://[fe80::1]/"]) {
      expect(await refusal(createWebhook(db, owner, createWebhookSchema.parse({ url })))).toEqual({
        status: 400,
        message: expect.stringMatching(/may not point at/),
      });
    }
    const wallet = newWallet().address;
    for (let i = 0; i < 20; i++) await subscribe({}, wallet);
    expect(await refusal(subscribe({}, wallet))).toEqual({
      status: 409,
      message: "a wallet may have at most 20 webhooks",
    });
    for (const hook of await listWebhooks(db, wallet)) await deleteWebhook(db, wallet, hook.id);
  });
});

describe("delivery", () => {
  it("delivers each matching event once, signed the Standard Webhooks way", async () => {
    await createJob(db, poster, jobInput()); // before the subscription: not delivered
    const hook = await subscribe({ categories: ["data", "design"] });
    const job = await createJob(db, poster, jobInput({ category: "data" }));
    await createJob(db, poster, jobInput({ category: "legal" })); // another category
    const agent = await registerAgent(db, operator, agentInput());
    await submitProposal(db, operator, job.id, proposalInput(agent.id));
    await drive(() => receiver.received.length >= 2);
    await runWebhookWorkerOnce(db);
    await settle(200);

    // Sent in parallel: no order promised; the event id orders them.
    const hits = [...receiver.received].sort(
      (a, b) => Number(a.payload?.data.eventId) - Number(b.payload?.data.eventId),
    );
    expect(hits.map((hit) => [hit.verifyError, hit.payload?.type])).toEqual([
      [null, "job.created"],
      [null, "proposal.submitted"],
    ]);
    const first = hits[0];
    expect(first!.payload).toEqual({
      type: "job.created",
      timestamp: expect.any(String),
      data: {
        eventId: first!.id.replace("evt_", ""),
        jobId: job.id,
        jobStatus: "open",
        category: "data",
        posterAddress: poster,
      },
    });
    expect(first!.id).toMatch(/^evt_\d+$/);
    expect(Math.abs(Number(first!.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    expect(first!.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(receiver.headersOf(receiver.received.indexOf(first!))["content-type"]).toBe(
      "application/json",
    );
    // Another secret does not verify it.
    receiver.secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    await createJob(db, poster, jobInput({ category: "design" }));
    await drive(() => receiver.received.length >= 3);
    expect(receiver.received[2]!.verifyError).toMatch(/No matching signature/);

    const log = await listDeliveries(db, owner, hook.id, { limit: 10 });
    expect(
      log.items.map((delivery) => [delivery.type, delivery.status, delivery.attempts]),
    ).toEqual(
      [
        ["job.created", "succeeded", 1],
        ["proposal.submitted", "succeeded", 1],
        ["job.created", "succeeded", 1],
      ].reverse(),
    );
    expect(log.items[0]!.attemptLog).toEqual([
      {
        attempt: 1,
        startedAt: expect.any(String),
        durationMs: expect.any(Number),
        statusCode: 200,
        error: null,
        responseExcerpt: "thanks",
      },
    ]);
    await deleteWebhook(db, owner, hook.id);
  });

  it("filters by event type; a receiver that fails twice then succeeds gets the event exactly once more", async () => {
    const hook = await subscribe({ types: ["job.created"] });
    receiver.answers = [500, 503];
    const job = await createJob(db, poster, jobInput());
    const agent = await registerAgent(db, operator, agentInput());
    await submitProposal(db, operator, job.id, proposalInput(agent.id));
    await drive(() => receiver.received.length >= 3);
    // Well past the next retry a first success would have had: nothing more comes.
    const until = Date.now() + 1_000;
    while (Date.now() < until) {
      await runWebhookWorkerOnce(db);
      await settle(50);
    }
    expect(receiver.received.map((hit) => [hit.id, hit.answered, hit.verifyError])).toEqual([
      [receiver.received[0]!.id, 500, null],
      [receiver.received[0]!.id, 503, null],
      [receiver.received[0]!.id, 200, null],
    ]);
    // Same message id and body every time; a fresh timestamp and signature per attempt.
    expect(new Set(receiver.received.map((hit) => hit.body)).size).toBe(1);
    const [delivery] = (await listDeliveries(db, owner, hook.id, { limit: 10 })).items;
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 3, lastStatusCode: 200 });
    expect(delivery!.attemptLog.map((attempt) => [attempt.attempt, attempt.statusCode])).toEqual([
      [1, 500],
      [2, 503],
      [3, 200],
    ]);
    expect(delivery!.attemptLog[0]!.error).toBe("answered 500");
    expect((await getWebhook(db, owner, hook.id)).status).toBe("active");
    await deleteWebhook(db, owner, hook.id);
  });

  it("is disabled once a message has failed for the whole retry window; its queue is cancelled", async () => {
    const hook = await subscribe();
    receiver.otherwise = 500;
    const job = await createJob(db, poster, jobInput());
    await drive(async () => (await getWebhook(db, owner, hook.id)).status === "disabled");
    const disabled = await getWebhook(db, owner, hook.id);
    expect(disabled.disabledReason).toMatch(
      /^message evt_\d+ failed for 2 s \(\d+ attempts; last: answered 500\)$/,
    );
    // Attempts at about 0, 0.1, 0.3, 0.7, 1.5 and 2 s (the end of the window).
    const attempts = receiver.received.length;
    expect(attempts).toBeGreaterThanOrEqual(4);
    expect(attempts).toBeLessThanOrEqual(7);
    const [delivery] = (await listDeliveries(db, owner, hook.id, { limit: 10 })).items;
    expect(delivery).toMatchObject({
      status: "failed",
      attempts,
      nextAttemptAt: null,
      lastError: "answered 500",
    });
    // Nothing more for it, old or new.
    receiver.otherwise = 200;
    const agent = await registerAgent(db, operator, agentInput());
    await submitProposal(db, operator, job.id, proposalInput(agent.id));
    for (let i = 0; i < 5; i++) await runWebhookWorkerOnce(db);
    await settle(300);
    expect(receiver.received.length).toBe(attempts);
    // A test message still goes out (to check the endpoint), and does not re-enable it.
    const test = await sendTestEvent(db, owner, hook.id);
    expect(test.status).toBe("succeeded");
    expect((await getWebhook(db, owner, hook.id)).status).toBe("disabled");
    // Enabled again: from now on (what happened meanwhile is in the feed), same secret.
    expect(await enableWebhook(db, owner, hook.id)).toMatchObject({
      status: "active",
      disabledAt: null,
      disabledReason: null,
    });
    const later = await createJob(db, poster, jobInput());
    await drive(() => receiver.received.length >= attempts + 2);
    expect(receiver.received.at(-1)).toMatchObject({
      verifyError: null,
      payload: { type: "job.created", data: { jobId: later.id } },
    });
    await deleteWebhook(db, owner, hook.id);
  });

  it("does not follow redirects, keeps only an excerpt of the answer, and gives up on a silent endpoint", async () => {
    const hook = await subscribe();
    const other = await startWebhookReceiver("/elsewhere");
    try {
      receiver.answers = [302];
      receiver.redirectTo = other.url;
      receiver.answerBody = "x".repeat(100_000);
      await createJob(db, poster, jobInput());
      await drive(() => receiver.received.length >= 2);
      expect(other.received).toEqual([]);
      const [delivery] = (await listDeliveries(db, owner, hook.id, { limit: 1 })).items;
      expect(delivery!.attemptLog[0]).toMatchObject({
        statusCode: 302,
        error: "answered 302; redirects are not followed",
      });
      expect(delivery!.attemptLog[0]!.responseExcerpt).toHaveLength(512);

      receiver.hang = true;
      const started = Date.now();
      const test = await sendTestEvent(db, owner, hook.id);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(test).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: null });
      expect(test.attemptLog[0]!.error).toBe("no answer within 1 s");
    } finally {
      await other.close();
      await deleteWebhook(db, owner, hook.id);
    }
  });

  it("sends a signed test message on demand, tried once, listed in the delivery log", async () => {
    const hook = await subscribe();
    const sent = await sendTestEvent(db, owner, hook.id);
    expect(sent).toMatchObject({
      type: "webhook.test",
      eventId: null,
      status: "succeeded",
      attempts: 1,
      messageId: expect.stringMatching(/^msg_/),
    });
    const [hit] = await receiver.waitFor(1);
    expect(hit).toMatchObject({ id: sent.messageId, verifyError: null });
    expect(hit!.payload).toEqual({
      type: "webhook.test",
      timestamp: expect.any(String),
      data: { webhookId: hook.id, messageId: sent.messageId },
    });
    receiver.otherwise = 500;
    const failed = await sendTestEvent(db, owner, hook.id);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 500 });
    for (let i = 0; i < 5; i++) await runWebhookWorkerOnce(db);
    await settle(300);
    expect(receiver.received).toHaveLength(2);
    const log = await listDeliveries(db, owner, hook.id, { limit: 1 });
    expect(log.items.map((delivery) => delivery.id)).toEqual([failed.id]);
    const next = await listDeliveries(db, owner, hook.id, { limit: 1, cursor: log.nextCursor! });
    expect(next.items.map((delivery) => delivery.id)).toEqual([sent.id]);
    expect((await getWebhook(db, owner, hook.id)).status).toBe("active");
    await deleteWebhook(db, owner, hook.id);
  });
});

describe("the retry schedule", () => {
  it("doubles from the base and ends with one last attempt at the end of the window", () => {
    const dueSince = new Date("2026-11-24T00:00:00Z");
    const base = { dueSince, baseSeconds: 30, windowSeconds: 86_400, jitter: 1 };
    let now = dueSince;
    const offsets: number[] = [0];
    for (let failed = 1; ; failed++) {
      const next = nextAttemptAt({ ...base, failedAttempts: failed, now });
      if (!next) break;
      now = next;
      offsets.push((now.getTime() - dueSince.getTime()) / 1000);
    }
    expect(offsets).toEqual([
      0, 30, 90, 210, 450, 930, 1890, 3810, 7650, 15330, 30690, 61410, 86400,
    ]);
    // Jitter stays within ±10 %.
    const jittered = nextAttemptAt({ ...base, jitter: 1.1, failedAttempts: 2, now: dueSince });
    expect(jittered!.getTime() - dueSince.getTime()).toBe(66_000);
  });
});

if (TEST_DATABASE_URL) {
  describe("two workers on one PostgreSQL", () => {
    let postgres: TestDatabase;
    beforeAll(async () => {
      postgres = await createTestDatabase("postgres");
    });
    afterAll(() => postgres?.close());

    it("deliver each event exactly once", async () => {
      const second = await openDatabase({
        kind: "postgres",
        connectionString: (() => {
          const url = new URL(postgres.databaseUrl!);
          const schema = url.searchParams.get("schema")!;
          url.searchParams.delete("schema");
          url.searchParams.set("options", `-c search_path=${schema}`);
          return url.toString();
        })(),
        schema: new URL(postgres.databaseUrl!).searchParams.get("schema")!,
      });
      try {
        const created = await createWebhook(
          postgres.db,
          owner,
          createWebhookSchema.parse({ url: receiver.url }),
        );
        receiver.secret = created.secret;
        receiver.answers = [500]; // one retry in the mix
        const jobs = 30;
        // Jobs posted through both clients while both workers run.
        const writes = (async () => {
          for (let i = 0; i < jobs; i++) {
            await createJob(i % 2 ? postgres.db : second.db, poster, jobInput());
          }
        })();
        const workers = [postgres.db, second.db].map(async (worker) => {
          const deadline = Date.now() + 30_000;
          while (receiver.received.filter((hit) => hit.answered === 200).length < jobs) {
            if (Date.now() > deadline) throw new Error("not all delivered");
            await runWebhookWorkerOnce(worker);
            await settle(20);
          }
        });
        await writes;
        await Promise.all(workers);
        await settle(300);
        const ok = receiver.received.filter((hit) => hit.answered === 200);
        expect(ok).toHaveLength(jobs);
        expect(new Set(ok.map((hit) => hit.id)).size).toBe(jobs);
        expect(receiver.received).toHaveLength(jobs + 1);
        expect(receiver.received.every((hit) => hit.verifyError === null)).toBe(true);
      } finally {
        await second.close();
      }
    });
  });
}
