// A job's creation is one statement (the poster's wallet row, the job, its event): what it
// answers is what is stored, on both databases, and many creations at once by a wallet the
// database has never seen each land whole, with one wallet row and one event each.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listEvents } from "@/lib/events/feed";
import { listEventsQuerySchema } from "@/lib/shared/schemas/events";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { jobInput, newWallet } from "@/tests/helpers/in-process";
import { createJob, getJob } from "./jobs";

describe.each(DB_KINDS)("createJob on %s", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.close());

  it("answers the job as stored, creates the unknown poster's wallet unverified, announces it", async () => {
    const { db } = database;
    const poster = newWallet().address;
    const before = Date.now();
    const job = await createJob(db, poster, jobInput({ budgetUsdc: 12.5, handle: "@maker" }));
    expect(await getJob(db, job.id)).toEqual(job);
    expect(job).toMatchObject({ status: "open", budgetUsdc: 12.5, posterVerified: false });
    // Stored as UTC, as Prisma writes every other timestamp.
    const created = Date.parse(job.createdAt);
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(Date.now());
    const wallet = await db.wallet.findUniqueOrThrow({ where: { address: poster } });
    expect(wallet.verified).toBe(false);
    expect(Math.abs(wallet.createdAt.getTime() - created)).toBeLessThan(60_000);

    const events = await listEvents(db, listEventsQuerySchema.parse({ jobId: job.id }));
    expect(events.items).toEqual([
      expect.objectContaining({
        type: "job.created",
        data: { jobId: job.id, jobStatus: "open", category: job.category, posterAddress: poster },
      }),
    ]);
  });

  it("stores requirements as given, whatever characters they hold", async () => {
    const { db } = database;
    const requirements = ['Say "hi"', "back\\slash, comma", "NULL", "{braces}", "ünïcödé ✓"];
    const job = await createJob(db, newWallet().address, jobInput({ requirements }));
    expect(job.requirements).toEqual(requirements);
    expect(await getJob(db, job.id)).toEqual(job);
  });

  it("shows a verified poster's badge on the new job", async () => {
    const { db } = database;
    const poster = newWallet().address;
    await db.wallet.create({ data: { address: poster, verified: true, verifiedAt: new Date() } });
    const job = await createJob(db, poster, jobInput());
    expect(job.posterVerified).toBe(true);
    expect(await getJob(db, job.id)).toEqual(job);
  });

  it("twenty creations at once by a wallet never seen: all land, one wallet row, one event each", async () => {
    const { db } = database;
    const poster = newWallet().address;
    const jobs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createJob(db, poster, jobInput({ title: `Job ${i}` }))),
    );
    expect(new Set(jobs.map((job) => job.id)).size).toBe(20);
    expect(await db.wallet.count({ where: { address: poster } })).toBe(1);
    expect(await db.job.count({ where: { posterAddress: poster } })).toBe(20);
    const events = await db.event.findMany({
      where: { jobId: { in: jobs.map((job) => job.id) } },
      select: { jobId: true, type: true },
    });
    expect(events.map((event) => event.jobId).sort()).toEqual(jobs.map((job) => job.id).sort());
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(["job.created"]));
  });
});
