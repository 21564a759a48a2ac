// The event feed in-process: every write announces its event in its own transaction (a write
// that fails leaves none, an event that cannot be written fails the write), the feed pages in
// order with its filters, the long-poll answers when an event arrives and times out empty
// otherwise, and, on PostgreSQL, a transaction that took an id first but commits last is
// never skipped by a reader.
import { afterAll, beforeAll } from "vitest";
import { describe, expect, it } from "@/tests/helpers/fixture";
import { DomainError } from "@/lib/platform/errors";
import { registerAgent } from "@/lib/marketplace/agents";
import { createJob } from "@/lib/marketplace/jobs";
import { rejectProposal, submitProposal } from "@/lib/marketplace/proposals";
import { postReview } from "@/lib/marketplace/reviews";
import { acceptProposal, completeJob, deliverJob } from "@/lib/marketplace/transitions";
import { listEventsQuerySchema } from "@/lib/shared/schemas/events";
import { deliverSchema } from "@/lib/shared/schemas/jobs";
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "@/tests/helpers/db";
import {
  agentInput,
  type InProcessMarket,
  jobInput,
  jobWithBid,
  newWallet,
  proposalInput,
  settle,
  signedPayment,
} from "@/tests/helpers/in-process";
import { feedHead, listEvents, readEvents } from "./feed";
import {
  EVENTS_LOCK_KEY,
  recordEvent,
  runWrite,
  writeEvents,
  writeInOneStatement,
} from "@/lib/kernel/write";

const poster = newWallet();
const operator = newWallet();
const rival = newWallet();

it.override("marketEnv", {
  EVENTS_LONG_POLL_MAX_WAITERS: "3",
  EVENTS_LONG_POLL_PER_CLIENT: "2",
});

const query = (fields: Record<string, string> = {}) => listEventsQuerySchema.parse(fields);

async function eventsOf(market: InProcessMarket, jobId: string) {
  return (await listEvents(market.db, query({ jobId, limit: "100" }))).items;
}

const oneFile = deliverSchema.parse({
  attachments: [
    {
      name: "report.txt",
      size: 5,
      type: "text/plain",
      dataUrl: `data:text/plain;base64,${Buffer.from("hello").toString("base64")}`,
    },
  ],
});

/** The client address a long-poll counts for. */
const client = "192.0.2.1";

async function failure(write: Promise<unknown>): Promise<unknown> {
  return write.then(
    () => {
      throw new Error("expected the write to fail");
    },
    (error: unknown) => error,
  );
}

/** A paid, accepted job with a rival's bid rejected by the acceptance. */
async function acceptedJob(market: InProcessMarket) {
  const { job, agent, proposal } = await jobWithBid(market.db, poster.address, operator.address);
  const rivalAgent = await registerAgent(market.db, rival.address, agentInput());
  const rivalBid = await submitProposal(
    market.db,
    rival.address,
    job.id,
    proposalInput(rivalAgent.id),
  );
  const target = { jobId: job.id, proposalId: proposal.id };
  const txHash = await settle(market, target, await signedPayment(market, poster, target));
  await acceptProposal(market.db, poster.address, job.id, { proposalId: proposal.id, txHash });
  return { job, agent, proposal, rivalAgent, rivalBid, txHash };
}

describe("every write announces its event in its own transaction", () => {
  it("walks a job through its life: one event per transition, in order, ids and statuses only", async ({
    market,
  }) => {
    const { job, agent, proposal, rivalAgent, rivalBid, txHash } = await acceptedJob(market);
    await postReview(market.db, poster.address, {
      agentId: agent.id,
      jobId: job.id,
      rating: 4,
      comment: "fine",
    });
    await deliverJob(market.db, operator.address, job.id, oneFile);
    await completeJob(market.db, poster.address, job.id, {});

    const events = await eventsOf(market, job.id);
    expect(events.map((event) => event.type)).toEqual([
      "job.created",
      "proposal.submitted",
      "proposal.submitted",
      "payment.settled",
      "job.accepted",
      "proposal.rejected",
      "review.created",
      "job.delivered",
      "job.completed",
    ]);
    const ids = events.map((event) => BigInt(event.id));
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);

    const common = { jobId: job.id, category: "research", posterAddress: poster.address };
    const ours = {
      agentId: agent.id,
      agentWalletAddress: operator.address,
      agentOperatorAddress: operator.address,
    };
    const byType = Object.fromEntries(events.map((event) => [event.type, event.data]));
    expect(events[0]!.data).toEqual({ ...common, jobStatus: "open" });
    expect(events[1]!.data).toEqual({
      ...common,
      ...ours,
      jobStatus: "open",
      proposalId: proposal.id,
      proposalStatus: "pending",
    });
    expect(byType["payment.settled"]).toEqual({
      ...common,
      ...ours,
      jobStatus: "open",
      proposalId: proposal.id,
      proposalStatus: "pending",
      settlementId: expect.stringMatching(/^stl_/),
      settlementStatus: "succeeded",
      txHash,
    });
    expect(byType["job.accepted"]).toEqual({
      ...common,
      ...ours,
      jobStatus: "in_progress",
      proposalId: proposal.id,
      proposalStatus: "accepted",
    });
    // The rival's bid, rejected by the acceptance, names the rival's agent.
    expect(byType["proposal.rejected"]).toEqual({
      ...common,
      jobStatus: "in_progress",
      proposalId: rivalBid.id,
      proposalStatus: "rejected",
      agentId: rivalAgent.id,
      agentWalletAddress: rival.address,
      agentOperatorAddress: rival.address,
    });
    expect(byType["review.created"]).toMatchObject({
      ...ours,
      reviewId: expect.stringMatching(/^rev_/),
    });
    expect(byType["job.delivered"]).toMatchObject({ jobStatus: "delivered", ...ours });
    expect(byType["job.completed"]).toMatchObject({ jobStatus: "completed", ...ours });
    // No message, amount, title or file in any event.
    expect(JSON.stringify(events)).not.toMatch(/fine|hello|report\.txt|Summarise|7\.25/);

    const rows = await market.db.event.findMany({ where: { jobId: job.id } });
    expect(new Set(rows.flatMap((row) => row.actors))).toEqual(
      new Set([poster.address, operator.address, rival.address]),
    );
  });

  it("announces a poster's rejection, and a review given with the completion", async ({
    market,
  }) => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    await rejectProposal(market.db, poster.address, job.id, proposal.id);
    expect((await eventsOf(market, job.id)).at(-1)).toMatchObject({
      type: "proposal.rejected",
      data: { proposalId: proposal.id, proposalStatus: "rejected", jobStatus: "open" },
    });

    const paid = await acceptedJob(market);
    await deliverJob(market.db, operator.address, paid.job.id, { attachments: [] });
    await completeJob(market.db, poster.address, paid.job.id, { rating: 5 });
    expect((await eventsOf(market, paid.job.id)).slice(-2).map((event) => event.type)).toEqual([
      "job.completed",
      "review.created",
    ]);
  });

  it("a refused write leaves no event", async ({ market }) => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    const before = await feedHead(market.db);
    // 409 from the state check, 403 from the actor check, 409 from a duplicate bid's index.
    expect(
      await failure(deliverJob(market.db, operator.address, job.id, { attachments: [] })),
    ).toBeInstanceOf(DomainError);
    expect(
      await failure(rejectProposal(market.db, rival.address, job.id, proposal.id)),
    ).toBeInstanceOf(DomainError);
    expect(
      await failure(
        submitProposal(market.db, operator.address, job.id, proposalInput(proposal.agentId)),
      ),
    ).toBeInstanceOf(DomainError);
    expect(await feedHead(market.db)).toBe(before);
  });

  it("a write that fails after its transition is announced leaves neither the change nor the event", async ({
    market,
  }) => {
    const { job } = await acceptedJob(market);
    const before = await feedHead(market.db);
    // The attachments are inserted after the job moved to delivered and job.delivered was
    // recorded; make that insert fail.
    await market.db.$executeRawUnsafe(`
      CREATE FUNCTION refuse_attachments() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'attachments refused by the test'; END $$`);
    await market.db.$executeRawUnsafe(`
      CREATE TRIGGER refuse_attachments BEFORE INSERT ON "attachments"
        FOR EACH ROW EXECUTE FUNCTION refuse_attachments()`);
    try {
      await failure(deliverJob(market.db, operator.address, job.id, oneFile));
    } finally {
      await market.db.$executeRawUnsafe(`DROP TRIGGER refuse_attachments ON "attachments"`);
      await market.db.$executeRawUnsafe(`DROP FUNCTION refuse_attachments()`);
    }
    expect((await market.db.job.findUniqueOrThrow({ where: { id: job.id } })).status).toBe(
      "in_progress",
    );
    expect(await feedHead(market.db)).toBe(before);
  });

  it("an event that cannot be written fails its write: the job stays as it was", async ({
    market,
  }) => {
    const { job } = await acceptedJob(market);
    await deliverJob(market.db, operator.address, job.id, { attachments: [] });
    await market.db.$executeRawUnsafe(`
      CREATE FUNCTION refuse_completed() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN IF NEW."type" = 'job.completed' THEN RAISE EXCEPTION 'refused'; END IF;
           RETURN NEW; END $$`);
    await market.db.$executeRawUnsafe(`
      CREATE TRIGGER refuse_completed BEFORE INSERT ON "events"
        FOR EACH ROW EXECUTE FUNCTION refuse_completed()`);
    try {
      await failure(completeJob(market.db, poster.address, job.id, { rating: 5 }));
    } finally {
      await market.db.$executeRawUnsafe(`DROP TRIGGER refuse_completed ON "events"`);
      await market.db.$executeRawUnsafe(`DROP FUNCTION refuse_completed()`);
    }
    const row = await market.db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.status).toBe("delivered");
    expect(await market.db.review.count({ where: { jobId: job.id } })).toBe(0);
    expect((await eventsOf(market, job.id)).at(-1)?.type).toBe("job.delivered");
  });

  it("an event naming a row that does not exist fails its write, and names the row", async ({
    market,
  }) => {
    const { job } = await jobWithBid(market.db, poster.address, operator.address);
    await expect(
      runWrite(market.db, async (tx) => {
        recordEvent(tx, { type: "proposal.rejected", jobId: job.id, proposalId: "prop_nowhere" });
      }),
    ).rejects.toThrow("event proposal.rejected: proposal prop_nowhere not found");
    // A job transition names the job's accepted proposal, which has no foreign key.
    await market.db.job.update({
      where: { id: job.id },
      data: { acceptedProposalId: "prop_gone" },
    });
    await expect(
      runWrite(market.db, async (tx) => {
        recordEvent(tx, { type: "job.delivered", jobId: job.id });
      }),
    ).rejects.toThrow("event job.delivered: proposal prop_gone not found");
    await expect(
      runWrite(market.db, async (tx) => {
        recordEvent(tx, { type: "job.created", jobId: "job_nowhere" });
      }),
    ).rejects.toThrow("event job.created: job job_nowhere not found");
    expect(await eventsOf(market, job.id)).toEqual([
      expect.objectContaining({ type: "job.created" }),
      expect.objectContaining({ type: "proposal.submitted" }),
    ]);
  });

  it("a one-statement write refuses an event that notifies: those need the event's id", async ({
    market,
  }) => {
    const { job } = await jobWithBid(market.db, poster.address, operator.address);
    await expect(
      writeInOneStatement(market.db, {
        ctes: `"nothing" AS (SELECT 1)`,
        select: `SELECT 1 AS "one"`,
        values: [],
        events: [
          {
            fact: { type: "proposal.rejected", jobId: job.id },
            row: { status: "open", category: "data", posterAddress: poster.address },
          },
        ],
      }),
    ).rejects.toThrow("event proposal.rejected notifies: write it in runWrite()");
    expect(await eventsOf(market, job.id)).toHaveLength(2);
  });

  it("an announcement outside runWrite is a programming error, not a lost event", async ({
    market,
  }) => {
    const { job } = await jobWithBid(market.db, poster.address, operator.address);
    const { transition } = await import("@/lib/kernel/lifecycle");
    await expect(
      market.db.$transaction((tx) => transition(tx, "accept", job.id, {})),
    ).rejects.toThrow(/outside runWrite/);
    expect((await market.db.job.findUniqueOrThrow({ where: { id: job.id } })).status).toBe("open");
  });
});

describe("the feed", () => {
  it("pages in id order with limit and nextCursor, and filters by types, category and jobId", async ({
    market,
  }) => {
    const start = (await feedHead(market.db)).toString();
    const design = await createJob(market.db, poster.address, jobInput({ category: "design" }));
    const data = await createJob(market.db, poster.address, jobInput({ category: "data" }));
    const agent = await registerAgent(market.db, operator.address, agentInput());
    await submitProposal(market.db, operator.address, design.id, proposalInput(agent.id));
    await submitProposal(market.db, operator.address, data.id, proposalInput(agent.id));

    const seen: string[] = [];
    let after = start;
    for (let page = 0; page < 10; page++) {
      const result = await listEvents(market.db, query({ after, limit: "3" }));
      seen.push(...result.items.map((event) => `${event.type}:${event.data.jobId}`));
      expect(result.hasMore).toBe(result.items.length === 3 && page === 0);
      after = result.nextCursor;
      if (!result.hasMore) break;
    }
    expect(seen).toEqual([
      `job.created:${design.id}`,
      `job.created:${data.id}`,
      `proposal.submitted:${design.id}`,
      `proposal.submitted:${data.id}`,
    ]);
    // `latest`: nothing of the past, the position at the head.
    expect(await listEvents(market.db, query({ after: "latest" }))).toEqual({
      items: [],
      nextCursor: after,
      hasMore: false,
    });
    // Caught up: an empty page keeps the position at the head.
    const caughtUp = await listEvents(market.db, query({ after }));
    expect(caughtUp).toEqual({ items: [], nextCursor: after, hasMore: false });

    const byType = await listEvents(
      market.db,
      query({ after: start, types: "proposal.submitted" }),
    );
    expect(byType.items.map((event) => event.data.jobId)).toEqual([design.id, data.id]);
    const byCategory = await listEvents(market.db, query({ after: start, category: "data" }));
    expect(byCategory.items.map((event) => event.type)).toEqual([
      "job.created",
      "proposal.submitted",
    ]);
    const byJob = await listEvents(
      market.db,
      query({ after: start, jobId: design.id, types: "job.created,proposal.submitted" }),
    );
    expect(byJob.items.map((event) => event.type)).toEqual(["job.created", "proposal.submitted"]);
    // A filtered page that is not full moves the position to the head it looked up to.
    const none = await listEvents(market.db, query({ after: start, category: "legal" }));
    expect(none).toEqual({ items: [], nextCursor: after, hasMore: false });
  });

  it("refuses a bad cursor, type, category, limit or wait (400 in the route)", () => {
    for (const bad of [
      { after: "-1" },
      { after: "abc" },
      { after: "99999999999999999999" },
      { types: "job.created,job.exploded" },
      { category: "gardening" },
      { limit: "0" },
      { limit: "101" },
      { wait: "31" },
      { wait: "1.5" },
    ]) {
      expect(listEventsQuerySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("the long-poll", () => {
  it("answers as soon as a matching event is committed", async ({ market }) => {
    const after = (await feedHead(market.db)).toString();
    const started = Date.now();
    const waiting = readEvents(market.db, query({ after, wait: "20", types: "job.created" }), {
      client,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // An event that does not match does not end the wait.
    const agent = await registerAgent(market.db, operator.address, agentInput());
    const open = await createJob(market.db, poster.address, jobInput());
    const page = await waiting;
    expect(page.items.map((event) => event.data.jobId)).toEqual([open.id]);
    expect(Date.now() - started).toBeLessThan(10_000);

    const bidAfter = (await feedHead(market.db)).toString();
    const bid = readEvents(market.db, query({ after: bidAfter, wait: "20", jobId: open.id }), {
      client,
    });
    await createJob(market.db, poster.address, jobInput());
    await submitProposal(market.db, operator.address, open.id, proposalInput(agent.id));
    expect((await bid).items.map((event) => event.type)).toEqual(["proposal.submitted"]);
  });

  it("times out empty after `wait` seconds, at the head, and stops when the client goes", async ({
    market,
  }) => {
    const after = (await feedHead(market.db)).toString();
    const started = Date.now();
    const page = await readEvents(market.db, query({ after, wait: "1", category: "legal" }), {
      client,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(page).toEqual({ items: [], nextCursor: after, hasMore: false });

    const controller = new AbortController();
    const aborted = readEvents(market.db, query({ after, wait: "30" }), {
      signal: controller.signal,
      client,
    });
    const abortAt = Date.now();
    setTimeout(() => controller.abort(), 200);
    expect((await aborted).items).toEqual([]);
    expect(Date.now() - abortAt).toBeLessThan(5_000);
  });

  it("holds at most EVENTS_LONG_POLL_PER_CLIENT per client (429) and EVENTS_LONG_POLL_MAX_WAITERS in all (503)", async ({
    market,
  }) => {
    const after = (await feedHead(market.db)).toString();
    const controller = new AbortController();
    const waitFrom = (from: string) =>
      readEvents(market.db, query({ after, wait: "30" }), {
        signal: controller.signal,
        client: from,
      });
    const held = [waitFrom("198.51.100.1"), waitFrom("198.51.100.1")];
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The same client's third: 429, its own slots free up within `wait`.
    const third = await failure(waitFrom("198.51.100.1"));
    expect(third).toMatchObject({
      status: 429,
      code: "too_many_long_polls",
      headers: { "Retry-After": "1" },
    });
    // Another client still gets the last slot; a third client then finds none (503).
    held.push(waitFrom("198.51.100.2"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const full = await failure(waitFrom("198.51.100.3"));
    expect(full).toMatchObject({
      status: 503,
      code: "server_busy",
      headers: { "Retry-After": "1" },
    });
    // Without wait nothing is held.
    expect(
      (await readEvents(market.db, query({ after }), { client: "198.51.100.3" })).items,
    ).toEqual([]);
    controller.abort();
    await Promise.all(held);
    // The slots are free again.
    const again = readEvents(market.db, query({ after, wait: "1" }), { client: "198.51.100.1" });
    expect((await again).items).toEqual([]);
  });
});

if (TEST_DATABASE_URL) {
  describe("commit order on PostgreSQL", () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase("postgres");
    });
    afterAll(() => database?.close());

    it("a transaction that took its id first and commits last is never skipped by a reader", async () => {
      const { db } = database;
      const first = await createJob(db, poster.address, jobInput());
      const start = await feedHead(db);

      // T1 writes its event (id start+1) and stays open, holding the events lock.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let written!: () => void;
      const wroteT1 = new Promise<void>((resolve) => (written = resolve));
      const t1 = db.$transaction(
        async (tx) => {
          await writeEvents(tx, [{ type: "job.delivered", jobId: first.id }]);
          written();
          await gate;
        },
        { timeout: 30_000 },
      );
      await wroteT1;

      // T2, a whole write, starts after T1 took its id and runs as far as it can: with plain
      // inserts it would commit its higher id first; here it waits for T1's commit.
      let t2Done = false;
      const t2 = createJob(db, poster.address, jobInput()).then((job) => {
        t2Done = true;
        return job;
      });
      const t2Waits = async () => {
        // T2 waits on this schema's events lock (key1 = classid, key2 = objid).
        const rows = await db.$queryRaw<{ n: bigint }[]>`
          SELECT count(*) AS n FROM pg_locks
          WHERE locktype = 'advisory' AND NOT granted AND classid = ${EVENTS_LOCK_KEY}::oid
            AND objid = hashtext(current_schema())::oid`;
        return rows[0]!.n > 0n;
      };
      expect(await waitFor(async () => t2Done || (await t2Waits()))).toBe(true);
      const t2DoneWhileT1Open = t2Done;

      // A reader in the meantime, and a long-poll started before T1 commits.
      const during = await listEvents(db, query({ after: start.toString() }));
      const polled = readEvents(db, query({ after: start.toString(), wait: "20" }), { client });

      release();
      await t1;
      const second = await t2;
      const all = await listEvents(db, query({ after: start.toString() }));
      expect(all.items.map((event) => [event.type, event.data.jobId])).toEqual([
        ["job.delivered", first.id],
        ["job.created", second.id],
      ]);
      expect(BigInt(all.items[0]!.id)).toBe(start + 1n);
      // Whoever continues from where they stopped sees every event, T1's included.
      const continued = await listEvents(db, query({ after: during.nextCursor }));
      expect([...during.items, ...continued.items].map((event) => event.id)).toEqual(
        all.items.map((event) => event.id),
      );
      const firstPoll = await polled;
      const rest = await listEvents(db, query({ after: firstPoll.nextCursor }));
      expect([...firstPoll.items, ...rest.items].map((event) => event.id)).toEqual(
        all.items.map((event) => event.id),
      );
      // How: T2 could not commit its event while T1 held the events lock.
      expect(during).toEqual({ items: [], nextCursor: start.toString(), hasMore: false });
      expect(t2DoneWhileT1Open).toBe(false);
    });

    it("many concurrent writes: ids are dense in commit order and each write has its event", async () => {
      const { db } = database;
      const start = await feedHead(db);
      const jobs = await Promise.all(
        Array.from({ length: 20 }, () => createJob(db, poster.address, jobInput())),
      );
      const events = (await listEvents(db, query({ after: start.toString(), limit: "100" }))).items;
      expect(new Set(events.map((event) => event.data.jobId))).toEqual(
        new Set(jobs.map((job) => job.id)),
      );
      expect(events.map((event) => BigInt(event.id) - start)).toEqual(
        Array.from({ length: 20 }, (_, index) => BigInt(index + 1)),
      );
      // Rolled back: a hole in the ids, which no reader waits for.
      await expect(
        runWrite(db, async (tx) => {
          await writeEvents(tx, [{ type: "job.created", jobId: jobs[0]!.id }]);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      const after = await createJob(db, poster.address, jobInput());
      const tail = await listEvents(db, query({ after: events.at(-1)!.id, wait: "1" }));
      expect(tail.items.map((event) => event.data.jobId)).toEqual([after.id]);
    });
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}
