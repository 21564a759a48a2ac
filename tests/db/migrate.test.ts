import { afterAll, afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import {
  createEmptyDatabase,
  createTestDatabase,
  DB_KINDS,
  type EmptyDatabase,
  TEST_DATABASE_URL,
} from "@/tests/helpers/db";
import { openDatabase } from "@/lib/db/client";
import { loadMigrations, migrate, MigrationError } from "@/lib/db/migrate";
import { openPgSession, pgliteSession, quoteIdent } from "@/lib/db/sql";

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

  it("turns a payee that never agreed into a pending request and withdraws unearned badges (payee_consent_and_reputation)", async () => {
    const open = await openDatabase({ kind: "pglite", dataDir: undefined });
    try {
      const session = pgliteSession(open.pglite!);
      const all = loadMigrations();
      const at = all.findIndex((m) => m.name.endsWith("_payee_consent_and_reputation"));
      await migrate(session, all.slice(0, at));
      const [dust, real, operator, payee] = ["0x1111", "0x2222", "0x4444", "0x3333"].map((prefix) =>
        prefix.padEnd(42, "0"),
      );
      // Two verified posters: one paid dust, one paid 5 USDC; agent_b named an unconsenting payee.
      await session.exec(`
        INSERT INTO "wallets" ("address", "verified") VALUES ('${dust}', true), ('${real}', true);
        INSERT INTO "agents" ("id", "name", "walletAddress", "operatorAddress", "categories") VALUES
          ('agent_own', 'Own', '${operator}', '${operator}', ARRAY['research']::"Category"[]),
          ('agent_b', 'B', '${payee}', '${operator}', ARRAY['research']::"Category"[]);
        INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic", "timelineDays", "requirements", "handle", "posterAddress", "status") VALUES
          ('job_dust', 'T', 'D', 'research', 1, 1, ARRAY[]::text[], '@1', '${dust}', 'completed'),
          ('job_real', 'T', 'D', 'research', 5000000, 1, ARRAY[]::text[], '@2', '${real}', 'completed');
        INSERT INTO "proposals" ("id", "jobId", "agentId", "bidAtomic", "etaDays", "message", "payeeAddress", "status") VALUES
          ('prop_dust', 'job_dust', 'agent_own', 1, 1, 'm', '${operator}', 'accepted'),
          ('prop_real', 'job_real', 'agent_own', 5000000, 1, 'm', '${operator}', 'accepted');
        INSERT INTO "settlements" ("id", "jobId", "proposalId", "payer", "payTo", "amountAtomic", "network", "asset", "authorizationNonce", "validBefore", "txHash", "status") VALUES
          ('stl_dust', 'job_dust', 'prop_dust', '${dust}', '${operator}', 1, 'n', 'a', 'n1', 0, '0x01', 'succeeded'),
          ('stl_real', 'job_real', 'prop_real', '${real}', '${operator}', 5000000, 'n', 'a', 'n2', 0, '0x02', 'succeeded');
      `);
      await migrate(session, all);
      expect(
        await session.query(`SELECT "address", "verified" FROM "wallets" ORDER BY "address"`),
      ).toEqual([
        { address: dust, verified: false },
        { address: real, verified: true },
      ]);
      expect(
        await session.query(
          `SELECT "id", "walletAddress", "pendingWalletAddress" FROM "agents" ORDER BY "id"`,
        ),
      ).toEqual([
        { id: "agent_b", walletAddress: null, pendingWalletAddress: payee },
        { id: "agent_own", walletAddress: operator, pendingWalletAddress: null },
      ]);
      const [request] = await session.query<{
        nonce: string;
        status: string;
        payeeAddress: string;
      }>(
        `SELECT "nonce", "status", "payeeAddress" FROM "payee_consents" WHERE "agentId" = 'agent_b'`,
      );
      expect(request).toMatchObject({ status: "pending", payeeAddress: payee });
      expect(request!.nonce).toMatch(/^0x[0-9a-f]{64}$/);
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

describe.each(DB_KINDS)("migrations on %s", (kind) => {
  let database: EmptyDatabase | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });
  const tableExists = async (name: string) =>
    (
      await database!.sql.query<{ found: string | null }>(`SELECT to_regclass($1)::text AS found`, [
        name,
      ])
    )[0]?.found !== null;

  it("a failed migration leaves nothing half-applied, records its log and blocks the next run", async () => {
    database = await createEmptyDatabase(kind);
    const broken = {
      name: "20990101000000_broken",
      sql: "CREATE TABLE half (id int);\nCREATE TABLE nope (;",
      checksum: "x".repeat(64),
    };
    const later = {
      name: "20990102000000_later",
      sql: "CREATE TABLE later (id int);",
      checksum: "y".repeat(64),
    };
    await expect(migrate(database.sql, [broken, later])).rejects.toThrow(
      /Migration 20990101000000_broken failed: syntax error/,
    );
    // The migration's statements ran as one transaction: its first table is not there either,
    // and the runner stopped before the next migration.
    expect(await tableExists("half")).toBe(false);
    expect(await tableExists("later")).toBe(false);
    const rows = await database.sql.query<{
      migration_name: string;
      logs: string | null;
      finished_at: Date | null;
    }>(`SELECT migration_name, logs, finished_at FROM "_prisma_migrations"`);
    expect(rows).toEqual([
      {
        migration_name: "20990101000000_broken",
        logs: expect.stringMatching(/syntax error/),
        finished_at: null,
      },
    ]);
    // The next run refuses until someone resolves the row, even with the migration fixed.
    const fixed = { ...broken, sql: "CREATE TABLE half (id int);", checksum: "z".repeat(64) };
    const refused = migrate(database.sql, [fixed, later]);
    await expect(refused).rejects.toBeInstanceOf(MigrationError);
    await expect(refused).rejects.toThrow(
      /Migration 20990101000000_broken failed or never finished; refusing to continue/,
    );
    expect(await tableExists("later")).toBe(false);
    // Marked rolled back by an operator: the fixed migration and the next one apply.
    await database.sql.query(`UPDATE "_prisma_migrations" SET "rolled_back_at" = now()`);
    expect(await migrate(database.sql, [fixed, later])).toEqual({
      applied: [fixed.name, later.name],
      alreadyApplied: [],
    });
  });

  it("applies later migrations on top of a populated database, keeping every row", async () => {
    database = await createEmptyDatabase(kind);
    const [init, ...rest] = loadMigrations();
    expect(rest.length).toBeGreaterThan(0);
    await migrate(database.sql, [init!]);
    // Rows as the first release wrote them (raw SQL: today's client knows later columns).
    const poster = "0x1111111111111111111111111111111111111111";
    const agentWallet = "0x2222222222222222222222222222222222222222";
    await database.sql.exec(`
      INSERT INTO "wallets" ("address") VALUES ('${poster}');
      INSERT INTO "agents" ("id", "name", "walletAddress", "operatorAddress", "categories")
        VALUES ('agent_1', 'A', '${agentWallet}', '${agentWallet}', ARRAY['research']::"Category"[]);
      INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic",
          "timelineDays", "requirements", "handle", "status", "posterAddress",
          "assignedAgentId", "acceptedProposalId", "paymentTxHash")
        VALUES ('job_1', 'T', 'D', 'research', 25000000, 3, ARRAY['r'], '@111111',
          'in_progress', '${poster}', 'agent_1', 'prop_1', '0x${"ab".repeat(32)}');
      INSERT INTO "proposals" ("id", "jobId", "agentId", "bidAtomic", "etaDays", "message",
          "status")
        VALUES ('prop_1', 'job_1', 'agent_1', 20000000, 2, 'm', 'accepted');
      INSERT INTO "settlements" ("id", "jobId", "proposalId", "payer", "payTo",
          "amountAtomic", "network", "asset", "authorizationNonce", "validBefore", "txHash",
          "status")
        VALUES ('stl_1', 'job_1', 'prop_1', '${poster}', '${agentWallet}', 20000000,
          'eip155:31337', '0xe78A0F7E598Cc8b0Bb87894B0F60dD2a88d6a8Ab', '0x${"00".repeat(32)}',
          9999999999, '0x${"ab".repeat(32)}', 'succeeded');
    `);
    expect(await migrate(database.sql)).toEqual({
      applied: rest.map((migration) => migration.name),
      alreadyApplied: [init!.name],
    });
    const { db } = database;
    expect(await db.job.findUniqueOrThrow({ where: { id: "job_1" } })).toMatchObject({
      status: "in_progress",
      budgetAtomic: 25_000_000n,
      acceptedProposalId: "prop_1",
    });
    expect(await db.proposal.findUniqueOrThrow({ where: { id: "prop_1" } })).toMatchObject({
      status: "accepted",
      bidAtomic: 20_000_000n,
    });
    // The old settlement gains the new columns with their defaults.
    expect(await db.settlement.findUniqueOrThrow({ where: { id: "stl_1" } })).toMatchObject({
      status: "succeeded",
      txHash: `0x${"ab".repeat(32)}`,
      amountAtomic: 20_000_000n,
      attempts: 0,
      claimBlock: null,
      payload: null,
      leaseUntil: null,
      inFlightUntil: null,
      lastError: null,
      failureCode: null,
    });
    // And the new tables work with the old rows: a session for the existing wallet.
    const expiresAt = new Date("2099-01-01T00:00:00.000Z");
    await db.session.create({ data: { id: "s".repeat(43), wallet: poster, expiresAt } });
    expect(
      (
        await db.wallet.findUniqueOrThrow({
          where: { address: poster },
          include: { sessions: true },
        })
      ).sessions,
    ).toEqual([expect.objectContaining({ id: "s".repeat(43), userAgent: "", revokedAt: null })]);
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
    const later = new Date("2026-11-23T11:30:00.123Z");
    // Every field of every model is written with a value that is not its default, then read
    // back with a fresh query (not create()'s return) and compared whole.
    const rows = {
      wallet: { address: poster, verified: true, verifiedAt: later, createdAt: now },
      siweNonce: { nonce: "abc123abc123", expiresAt: later, usedAt: now, createdAt: now },
      agent: {
        id: "agent_1",
        name: "A",
        description: "d",
        walletAddress: operator,
        pendingWalletAddress: "0x3333333333333333333333333333333333333333",
        operatorAddress: poster,
        categories: ["research", "customer_support"] as ("research" | "customer_support")[],
        createdAt: now,
      },
      job: {
        id: "job_1",
        title: "T",
        description: "D",
        category: "data" as const,
        budgetAtomic: 1_000_000_000_000_000n,
        timelineDays: 3650,
        requirements: ["r1", "r2"],
        handle: "@111111",
        status: "delivered" as const,
        posterAddress: poster,
        assignedAgentId: "agent_1",
        acceptedProposalId: "prop_1",
        paymentTxHash: `0x${"ab".repeat(32)}`,
        cancelledAt: later,
        createdAt: now,
        updatedAt: later,
        deliveredAt: later,
        completedAt: later,
      },
      proposal: {
        id: "prop_1",
        jobId: "job_1",
        agentId: "agent_1",
        bidAtomic: 999_999_999_999_999n,
        etaDays: 3650,
        message: "m",
        payeeAddress: operator,
        status: "accepted" as const,
        createdAt: now,
        updatedAt: later,
      },
      review: {
        id: "rev_1",
        agentId: "agent_1",
        jobId: "job_1",
        reviewerAddress: poster,
        rating: 5,
        comment: "great",
        createdAt: now,
      },
      attachment: {
        id: "att_1",
        jobId: "job_1",
        name: "f.bin",
        size: 4,
        type: "application/octet-stream",
        data: new Uint8Array([0, 1, 2, 255]),
        createdAt: now,
      },
      settlement: {
        id: "stl_1",
        jobId: "job_1",
        proposalId: "prop_1",
        payer: poster,
        payTo: operator,
        amountAtomic: 1n,
        network: "eip155:31337",
        asset: operator,
        scheme: "auth_capture" as const,
        escrowTerms: { paymentInfo: { salt: "1" }, deliverBy: 1_700_000_000 },
        authorizationNonce: `0x${"00".repeat(32)}`,
        validBefore: 9_999_999_999n,
        txHash: `0x${"cd".repeat(32)}`,
        senderAddress: operator,
        senderNonce: 2_147_483_647,
        // Live (succeeded): the constraints test below relies on the job's one live row.
        status: "succeeded" as const,
        failureReason: "expired",
        failureCode: "settlement_failed",
        lastError: "rpc timeout",
        claimBlock: 123_456_789_012n,
        payload: { x402Version: 2, payload: { signature: "0x12", nested: [1, "two", null] } },
        leaseUntil: later,
        inFlightUntil: later,
        attempts: 7,
        createdAt: now,
        updatedAt: later,
        settledAt: later,
      },
      session: {
        id: "s".repeat(43),
        wallet: poster,
        createdAt: now,
        expiresAt: later,
        revokedAt: later,
        lastSeenAt: later,
        userAgent: "ua",
      },
      rateLimitCounter: { key: "auth:ip:127.0.0.1", count: 3, resetAt: later },
    };
    await db.wallet.create({ data: rows.wallet });
    await db.siweNonce.create({ data: rows.siweNonce });
    await db.agent.create({ data: rows.agent });
    await db.job.create({ data: rows.job });
    await db.proposal.create({ data: rows.proposal });
    await db.review.create({ data: rows.review });
    await db.attachment.create({ data: rows.attachment });
    await db.settlement.create({ data: rows.settlement });
    await db.session.create({ data: rows.session });
    await db.rateLimitCounter.create({ data: rows.rateLimitCounter });

    expect(await db.wallet.findUniqueOrThrow({ where: { address: poster } })).toEqual(rows.wallet);
    expect(await db.siweNonce.findUniqueOrThrow({ where: { nonce: "abc123abc123" } })).toEqual(
      rows.siweNonce,
    );
    expect(await db.agent.findUniqueOrThrow({ where: { id: "agent_1" } })).toEqual(rows.agent);
    expect(await db.job.findUniqueOrThrow({ where: { id: "job_1" } })).toEqual(rows.job);
    expect(await db.proposal.findUniqueOrThrow({ where: { id: "prop_1" } })).toEqual(rows.proposal);
    expect(await db.review.findUniqueOrThrow({ where: { id: "rev_1" } })).toEqual(rows.review);
    const attachment = await db.attachment.findUniqueOrThrow({ where: { id: "att_1" } });
    expect({ ...attachment, data: Array.from(attachment.data) }).toEqual({
      ...rows.attachment,
      data: [0, 1, 2, 255],
    });
    expect(await db.settlement.findUniqueOrThrow({ where: { id: "stl_1" } })).toEqual(
      rows.settlement,
    );
    expect(await db.session.findUniqueOrThrow({ where: { id: rows.session.id } })).toEqual(
      rows.session,
    );
    expect(
      await db.rateLimitCounter.findUniqueOrThrow({ where: { key: rows.rateLimitCounter.key } }),
    ).toEqual(rows.rateLimitCounter);

    const consent = {
      id: "pc_1",
      agentId: "agent_1",
      payeeAddress: operator,
      operatorAddress: poster,
      nonce: `0x${"ef".repeat(32)}`,
      deadline: later,
      status: "consented" as const,
      signature: `0x${"12".repeat(65)}`,
      createdAt: now,
      consentedAt: later,
    };
    await db.payeeConsent.create({ data: consent });
    expect(await db.payeeConsent.findUniqueOrThrow({ where: { id: "pc_1" } })).toEqual(consent);

    const hold = {
      id: "hold_1",
      settlementId: "stl_1",
      jobId: "job_1",
      paymentInfoHash: `0x${"ef".repeat(32)}`,
      escrowAddress: operator,
      payer: poster,
      receiver: operator,
      amountAtomic: 10_000_000n,
      captureBy: later,
      refundBy: later,
      feeBps: 250,
      feeReceiver: poster,
      state: "splitting" as const,
      capturedAtomic: 4_000_000n,
      feeAtomic: 100_000n,
      returnedAtomic: 6_000_000n,
      deliverBy: now,
      disputeOpenedAt: now,
      disputeOpenedBy: poster,
      disputeReason: "empty",
      resolution: "split",
      resolutionReason: "half done",
      resolvedBy: operator,
      resolvedAt: later,
      createdAt: now,
      updatedAt: later,
    };
    await db.escrowHold.create({ data: hold });
    expect(await db.escrowHold.findUniqueOrThrow({ where: { id: "hold_1" } })).toEqual(hold);
    const action = {
      id: "esc_1",
      holdId: "hold_1",
      kind: "void" as const,
      amountAtomic: 6_000_000n,
      feeAtomic: 0n,
      status: "failed" as const,
      txHash: `0x${"aa".repeat(32)}`,
      actor: "auto-release",
      reason: "why",
      lastError: "reverted",
      attempts: 3,
      leaseUntil: later,
      inFlightUntil: later,
      createdAt: now,
      decidedAt: later,
    };
    await db.escrowAction.create({ data: action });
    expect(await db.escrowAction.findUniqueOrThrow({ where: { id: "esc_1" } })).toEqual(action);

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

    const event = await db.event.create({
      data: {
        type: "job.created",
        jobId: rows.job.id,
        category: "data",
        actors: [poster, operator],
        data: { jobId: rows.job.id, jobStatus: "open", nested: { n: 1 } },
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
    // One row, from the migration: nothing pruned yet.
    expect(await db.eventPruning.findUniqueOrThrow({ where: { id: 1 } })).toMatchObject({
      prunedThrough: 0n,
    });
    const pruning = await db.eventPruning.update({
      where: { id: 1 },
      data: { prunedThrough: 41n, updatedAt: later },
    });
    expect(await db.eventPruning.findUniqueOrThrow({ where: { id: 1 } })).toEqual(pruning);
    expect(pruning).toEqual({ id: 1, prunedThrough: 41n, updatedAt: later });
    const message = await db.message.create({
      data: {
        jobId: rows.job.id,
        proposalId: rows.proposal.id,
        senderAddress: operator,
        body: "A question?\nTwo lines.",
        createdAt: now,
      },
    });
    expect(typeof message.id).toBe("bigint");
    expect(
      await db.proposal.findUniqueOrThrow({
        where: { id: rows.proposal.id },
        include: { messages: true },
      }),
    ).toMatchObject({ messages: [message] });
    // A message of no proposal cannot exist (foreign key).
    await expect(
      db.message.create({
        data: { jobId: rows.job.id, proposalId: "prop_missing", senderAddress: poster, body: "x" },
      }),
    ).rejects.toThrow();
    const marker = await db.threadRead.create({
      data: {
        proposalId: rows.proposal.id,
        wallet: poster,
        lastReadMessageId: message.id,
        updatedAt: now,
      },
    });
    expect(
      await db.threadRead.findUniqueOrThrow({
        where: { proposalId_wallet: { proposalId: rows.proposal.id, wallet: poster } },
      }),
    ).toEqual(marker);
    const notification = await db.notification.create({
      data: {
        recipient: poster,
        type: "message.created",
        jobId: rows.job.id,
        proposalId: rows.proposal.id,
        reviewId: "rev_1",
        messageId: message.id,
        eventId: event.id,
        readAt: now,
        createdAt: now,
      },
    });
    expect(await db.notification.findUniqueOrThrow({ where: { id: notification.id } })).toEqual(
      notification,
    );

    // Deleting a subscription deletes its deliveries and their attempts.
    await db.webhookSubscription.delete({ where: { id: hook.id } });
    expect(await db.webhookDelivery.count()).toBe(0);
    expect(await db.webhookAttempt.count()).toBe(0);

    // The relations join on the columns written above.
    const full = await db.job.findUniqueOrThrow({
      where: { id: "job_1" },
      include: {
        poster: { include: { sessions: true } },
        assignedAgent: true,
        proposals: true,
        reviews: true,
        attachments: { select: { id: true } },
        settlements: true,
      },
    });
    expect(full.poster).toEqual({ ...rows.wallet, sessions: [rows.session] });
    expect(full.assignedAgent).toEqual(rows.agent);
    expect(full.proposals).toEqual([rows.proposal]);
    expect(full.reviews).toEqual([rows.review]);
    expect(full.attachments).toEqual([{ id: "att_1" }]);
    expect(full.settlements).toEqual([rows.settlement]);
  });

  it("enforces the constraints the schema cannot express", async () => {
    const { db } = database!;
    // Event pruning's mark is one row (id = 1).
    await expect(db.eventPruning.create({ data: { id: 2 } })).rejects.toThrow(
      /event_pruning_one_row/,
    );
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

// btree_gin (migration job_search_filters) is one per database: on a new database, schemas
// migrated at once must all succeed, and one schema's DROP ... CASCADE must not take it, nor
// the index it serves, from the others.
describe.runIf(TEST_DATABASE_URL)("the search index's extension on PostgreSQL", () => {
  const name = `migrate_ext_${process.pid}_${Date.now()}`;
  const admin = () => new pg.Client({ connectionString: TEST_DATABASE_URL });
  const inDatabase = (schema?: string) => {
    const url = new URL(TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    return { url: url.toString(), schema };
  };
  afterAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await client.end();
  });

  it("three schemas migrated at once on a new database; dropping one leaves the others whole", async () => {
    const client = admin();
    await client.connect();
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    await client.end();
    const schemas = ["first", "second", "third"];
    await Promise.all(
      schemas.map(async (schema) => {
        const { url } = inDatabase();
        const session = await openPgSession(url, schema);
        try {
          await migrate(session);
        } finally {
          await session.close();
        }
      }),
    );
    const session = await openPgSession(inDatabase().url);
    try {
      const [extension] = await session.query<{ schema: string }>(
        `SELECT extnamespace::regnamespace::text AS "schema" FROM pg_extension WHERE extname = 'btree_gin'`,
      );
      expect(extension?.schema).toBe("public");
      await session.query(`DROP SCHEMA "first" CASCADE`);
      const indexes = await session.query<{ schema: string }>(
        `SELECT schemaname AS "schema" FROM pg_indexes WHERE indexname = 'jobs_filters_searchVector_idx' ORDER BY 1`,
      );
      expect(indexes.map((row) => row.schema)).toEqual(["second", "third"]);
    } finally {
      await session.close();
    }
  });
});
