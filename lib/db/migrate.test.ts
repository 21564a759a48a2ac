import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, DB_KINDS } from "@/tests/helpers/db";
import { openDatabase } from "./client";
import { loadMigrations, migrate, MigrationError } from "./migrate";
import { pgliteSession } from "./sql";

describe("migration runner", () => {
  it("applies every migration to an empty embedded database once; the second run is a no-op", async () => {
    const open = await openDatabase({ kind: "pglite", dataDir: undefined });
    try {
      const session = pgliteSession(open.pglite!);
      const first = await migrate(session);
      expect(first.applied).toEqual(loadMigrations().map((m) => m.name));
      const second = await migrate(session);
      expect(second.applied).toEqual([]);
      expect(second.alreadyApplied).toEqual(first.applied);
      const rows = await session.query<{
        checksum: string;
        applied_steps_count: number;
        finished_at: Date | null;
      }>(`SELECT checksum, applied_steps_count, finished_at FROM "_prisma_migrations"`);
      expect(rows.map((row) => row.checksum)).toEqual(loadMigrations().map((m) => m.checksum));
      expect(rows.every((row) => row.applied_steps_count === 1 && row.finished_at)).toBe(true);
    } finally {
      await open.close();
    }
  });

  it("refuses to continue past a failed migration and records its log", async () => {
    const open = await openDatabase({ kind: "pglite", dataDir: undefined });
    try {
      const session = pgliteSession(open.pglite!);
      const broken = [
        { name: "20990101000000_broken", sql: "CREATE TABLE nope (;", checksum: "x".repeat(64) },
      ];
      await expect(migrate(session, broken)).rejects.toThrow(MigrationError);
      await expect(migrate(session, broken)).rejects.toThrow(/failed or never finished; refusing/);
      const [row] = await session.query<{ logs: string }>(`SELECT logs FROM "_prisma_migrations"`);
      expect(row?.logs).toMatch(/syntax error/);
    } finally {
      await open.close();
    }
  });

  it("backfills each existing proposal's payee from its agent's wallet (agent_profiles)", async () => {
    const open = await openDatabase({ kind: "pglite", dataDir: undefined });
    try {
      const session = pgliteSession(open.pglite!);
      const all = loadMigrations();
      const at = all.findIndex((m) => m.name.endsWith("_agent_profiles"));
      await migrate(session, all.slice(0, at));
      const payee = "0x3333333333333333333333333333333333333333";
      await session.exec(`
        INSERT INTO "wallets" ("address") VALUES ('0x1111111111111111111111111111111111111111');
        INSERT INTO "agents" ("id", "name", "description", "walletAddress", "operatorAddress", "categories")
          VALUES ('agent_b', 'B', '', '${payee}', '0x4444444444444444444444444444444444444444', ARRAY['research']::"Category"[]);
        INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic", "timelineDays", "requirements", "handle", "posterAddress")
          VALUES ('job_b', 'T', 'D', 'research', 1, 1, ARRAY[]::text[], '@1', '0x1111111111111111111111111111111111111111');
        INSERT INTO "proposals" ("id", "jobId", "agentId", "bidAtomic", "etaDays", "message")
          VALUES ('prop_b', 'job_b', 'agent_b', 1, 1, 'm');
      `);
      await migrate(session, all);
      const rows = await session.query<{ payeeAddress: string }>(
        `SELECT "payeeAddress" FROM "proposals" WHERE "id" = 'prop_b'`,
      );
      expect(rows).toEqual([{ payeeAddress: payee }]);
    } finally {
      await open.close();
    }
  });

  it("refuses a migration edited after it was applied", async () => {
    const open = await openDatabase({ kind: "pglite", dataDir: undefined });
    try {
      const session = pgliteSession(open.pglite!);
      const original = [
        { name: "20990101000000_one", sql: "CREATE TABLE one (id int);", checksum: "a".repeat(64) },
      ];
      await migrate(session, original);
      await expect(
        migrate(session, [{ ...original[0]!, checksum: "b".repeat(64) }]),
      ).rejects.toThrow(/checksum mismatch/);
    } finally {
      await open.close();
    }
  });
});

describe.each(DB_KINDS)("data layer on %s", (kind) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  afterAll(async () => database?.close());

  it("writes and reads back every model and field", async () => {
    database = await createTestDatabase(kind);
    const { db } = database;
    const poster = "0x1111111111111111111111111111111111111111";
    const operator = "0x2222222222222222222222222222222222222222";
    const now = new Date("2026-11-22T10:00:00.000Z");

    const wallet = await db.wallet.create({
      data: { address: poster, verified: true, verifiedAt: now, createdAt: now },
    });
    expect(wallet).toEqual({ address: poster, verified: true, verifiedAt: now, createdAt: now });

    const nonce = await db.siweNonce.create({
      data: { nonce: "abc123abc123", expiresAt: now, usedAt: now, createdAt: now },
    });
    expect(nonce).toEqual({ nonce: "abc123abc123", expiresAt: now, usedAt: now, createdAt: now });

    const agent = await db.agent.create({
      data: {
        id: "agent_1",
        name: "A",
        description: "d",
        walletAddress: operator,
        operatorAddress: operator,
        categories: ["research", "customer_support"],
        createdAt: now,
      },
    });
    expect(agent.categories).toEqual(["research", "customer_support"]);

    const job = await db.job.create({
      data: {
        id: "job_1",
        title: "T",
        description: "D",
        category: "data",
        budgetAtomic: 1_000_000_000_000_000n,
        timelineDays: 3650,
        requirements: ["r1", "r2"],
        handle: "@111111",
        status: "delivered",
        posterAddress: poster,
        assignedAgentId: agent.id,
        acceptedProposalId: "prop_1",
        paymentTxHash: `0x${"ab".repeat(32)}`,
        createdAt: now,
        updatedAt: now,
        deliveredAt: now,
        completedAt: null,
      },
    });
    expect(job.budgetAtomic).toBe(1_000_000_000_000_000n);
    expect(job.requirements).toEqual(["r1", "r2"]);

    const proposal = await db.proposal.create({
      data: {
        id: "prop_1",
        jobId: job.id,
        agentId: agent.id,
        bidAtomic: 1n,
        etaDays: 1,
        message: "m",
        payeeAddress: operator,
        status: "accepted",
        createdAt: now,
        updatedAt: now,
      },
    });
    expect(proposal.bidAtomic).toBe(1n);
    expect(proposal.payeeAddress).toBe(operator);

    const review = await db.review.create({
      data: {
        id: "rev_1",
        agentId: agent.id,
        jobId: job.id,
        reviewerAddress: poster,
        rating: 5,
        comment: "great",
        createdAt: now,
      },
    });
    expect(review.rating).toBe(5);

    const bytes = new Uint8Array([0, 1, 2, 255]);
    await db.attachment.create({
      data: {
        id: "att_1",
        jobId: job.id,
        name: "f.bin",
        size: 4,
        type: "application/octet-stream",
        data: bytes,
        createdAt: now,
      },
    });
    const attachment = await db.attachment.findUniqueOrThrow({ where: { id: "att_1" } });
    expect(Array.from(attachment.data)).toEqual([0, 1, 2, 255]);

    const settlement = await db.settlement.create({
      data: {
        id: "stl_1",
        jobId: job.id,
        proposalId: proposal.id,
        payer: poster,
        payTo: operator,
        amountAtomic: 1n,
        network: "eip155:31337",
        asset: operator,
        authorizationNonce: `0x${"00".repeat(32)}`,
        validBefore: 9_999_999_999n,
        txHash: `0x${"cd".repeat(32)}`,
        status: "succeeded",
        failureReason: null,
        createdAt: now,
        updatedAt: now,
        settledAt: now,
      },
    });
    expect(await db.settlement.findUniqueOrThrow({ where: { id: settlement.id } })).toEqual(
      settlement,
    );

    const session = await db.session.create({
      data: {
        id: "s".repeat(43),
        wallet: poster,
        createdAt: now,
        expiresAt: now,
        revokedAt: now,
        lastSeenAt: now,
        userAgent: "ua",
      },
    });
    expect(await db.session.findUniqueOrThrow({ where: { id: session.id } })).toEqual(session);
    expect(
      (
        await db.wallet.findUniqueOrThrow({
          where: { address: poster },
          include: { sessions: true },
        })
      ).sessions,
    ).toEqual([session]);

    const token = await db.accessToken.create({
      data: {
        id: "tok_1",
        wallet: poster,
        name: "bot",
        scopes: ["read", "post", "bid", "deliver", "review"],
        tokenHash: "ab".repeat(32),
        hint: "amk_…abcd",
        createdAt: now,
        expiresAt: now,
        revokedAt: now,
        lastUsedAt: now,
      },
    });
    expect(
      await db.accessToken.findUniqueOrThrow({ where: { tokenHash: token.tokenHash } }),
    ).toEqual(token);
    expect(
      (
        await db.wallet.findUniqueOrThrow({
          where: { address: poster },
          include: { accessTokens: true },
        })
      ).accessTokens,
    ).toEqual([token]);

    const counter = await db.rateLimitCounter.create({
      data: { key: "auth:ip:127.0.0.1", count: 3, resetAt: now },
    });
    expect(await db.rateLimitCounter.findUniqueOrThrow({ where: { key: counter.key } })).toEqual(
      counter,
    );

    const event = await db.event.create({
      data: {
        type: "job.created",
        jobId: job.id,
        category: "data",
        actors: [poster, operator],
        data: { jobId: job.id, jobStatus: "open", nested: { n: 1 } },
        createdAt: now,
      },
    });
    expect(typeof event.id).toBe("bigint");
    expect(await db.event.findUniqueOrThrow({ where: { id: event.id } })).toEqual(event);
    // Events without a job (the column is nullable for future kinds).
    const bare = await db.event.create({ data: { type: "x", actors: [], data: {} } });
    expect(bare.id > event.id).toBe(true);

    const hook = await db.webhookSubscription.create({
      data: {
        id: "wh_1",
        ownerAddress: poster,
        url: "https://hooks.example/in",
        types: ["job.created"],
        categories: ["data", "design"],
        secret: "whsec_c2VjcmV0",
        status: "disabled",
        disabledAt: now,
        disabledReason: "r",
        startAfterEventId: 0n,
        createdAt: now,
        updatedAt: now,
      },
    });
    expect(await db.webhookSubscription.findUniqueOrThrow({ where: { id: hook.id } })).toEqual(
      hook,
    );
    const delivery = await db.webhookDelivery.create({
      data: {
        id: "whd_1",
        subscriptionId: hook.id,
        eventId: event.id,
        messageId: `evt_${event.id}`,
        type: "job.created",
        payload: "{}",
        status: "failed",
        attempts: 2,
        nextAttemptAt: now,
        lastAttemptAt: now,
        lastStatusCode: 500,
        lastError: "answered 500",
        createdAt: now,
        completedAt: now,
      },
    });
    const attempt = await db.webhookAttempt.create({
      data: {
        deliveryId: delivery.id,
        attempt: 1,
        startedAt: now,
        durationMs: 12,
        statusCode: 500,
        error: "answered 500",
        responseExcerpt: "oops",
      },
    });
    expect(
      await db.webhookDelivery.findUniqueOrThrow({
        where: { id: delivery.id },
        include: { attemptLog: true, event: true, subscription: true },
      }),
    ).toEqual({ ...delivery, attemptLog: [attempt], event, subscription: hook });
    // One delivery per (subscription, event); test messages (no event) as many as wanted.
    await expect(
      db.webhookDelivery.create({
        data: { ...delivery, id: "whd_2", status: "pending", completedAt: null },
      }),
    ).rejects.toMatchObject({ code: "P2002" });
    for (const id of ["whd_t1", "whd_t2"]) {
      await db.webhookDelivery.create({
        data: { ...delivery, id, eventId: null, type: "webhook.test" },
      });
    }
    expect(await db.webhookDispatchCursor.findUniqueOrThrow({ where: { id: 1 } })).toMatchObject({
      cursor: 0n,
    });
    // Deleting a subscription deletes its deliveries and their attempts.
    await db.webhookSubscription.delete({ where: { id: hook.id } });
    expect(await db.webhookDelivery.count()).toBe(0);
    expect(await db.webhookAttempt.count()).toBe(0);

    const full = await db.job.findUniqueOrThrow({
      where: { id: job.id },
      include: {
        poster: true,
        assignedAgent: true,
        proposals: true,
        reviews: true,
        attachments: true,
        settlements: true,
      },
    });
    expect(full.poster.verified).toBe(true);
    expect(full.assignedAgent?.id).toBe(agent.id);
    expect([
      full.proposals.length,
      full.reviews.length,
      full.attachments.length,
      full.settlements.length,
    ]).toEqual([1, 1, 1, 1]);
  });

  it("enforces the constraints the schema cannot express", async () => {
    const { db } = database!;
    // One review per job and wallet.
    await expect(
      db.review.create({
        data: {
          id: "rev_2",
          agentId: "agent_1",
          jobId: "job_1",
          reviewerAddress: "0x1111111111111111111111111111111111111111",
          rating: 4,
          comment: "",
        },
      }),
    ).rejects.toMatchObject({ code: "P2002" });
    // At most one pending-or-succeeded settlement per job; failed ones do not count.
    const base = {
      jobId: "job_1",
      proposalId: "prop_1",
      payer: "0x1",
      payTo: "0x2",
      amountAtomic: 1n,
      network: "n",
      asset: "a",
      validBefore: 1n,
    };
    await db.settlement.create({
      data: { ...base, id: "stl_f", authorizationNonce: "n-f", status: "failed" },
    });
    await expect(
      db.settlement.create({
        data: { ...base, id: "stl_2", authorizationNonce: "n-2", status: "pending" },
      }),
    ).rejects.toMatchObject({ code: "P2002" });
    // One live proposal per agent and job.
    await expect(
      db.proposal.create({
        data: {
          id: "prop_2",
          jobId: "job_1",
          agentId: "agent_1",
          bidAtomic: 1n,
          etaDays: 1,
          message: "again",
          payeeAddress: "0x2222222222222222222222222222222222222222",
        },
      }),
    ).rejects.toMatchObject({ code: "P2002" });
    // Ratings and money are checked by the database too.
    await expect(
      db.review.create({
        data: {
          id: "rev_3",
          agentId: "agent_1",
          jobId: "job_1",
          reviewerAddress: "0x3",
          rating: 6,
          comment: "",
        },
      }),
    ).rejects.toThrow();
  });
});
