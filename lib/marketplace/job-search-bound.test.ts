// sort=relevance ranks the newest LIMITS.rankedMatches matches of a search, on PGlite and
// PostgreSQL: older matches stay out even when they would rank higher, and the pages end after
// that many jobs, each seen once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@/lib/shared/limits";
import { listJobsQuerySchema } from "@/lib/shared/schemas/jobs";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { newWallet } from "@/tests/helpers/in-process";
import { listJobs } from "./jobs";

const OLDER = 5;

describe.each(DB_KINDS)("relevance within the newest matches on %s", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const poster = newWallet().address;
    await database.db.wallet.create({ data: { address: poster } });
    // The oldest OLDER jobs name the word three times in their title: they would rank first.
    await database.db.$executeRaw`
      INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic",
        "timelineDays", "requirements", "handle", "status", "posterAddress", "createdAt",
        "updatedAt")
      SELECT 'job_bound_' || g,
             CASE WHEN g <= ${OLDER} THEN 'zebra zebra zebra' ELSE 'zebra job ' || g END,
             'Stripes.', 'data', 1000000, 1, ARRAY[]::text[], '@h', 'open', ${poster},
             TIMESTAMP '2026-01-01' + make_interval(secs => g),
             TIMESTAMP '2026-01-01' + make_interval(secs => g)
      FROM generate_series(1, ${LIMITS.rankedMatches + OLDER}) AS g`;
  });
  afterAll(() => database?.close());

  it("ranks the newest matches only, and its pages end after them", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listJobs(
        database.db,
        listJobsQuerySchema.parse({ q: "zebra", limit: "100", ...(cursor ? { cursor } : {}) }),
      );
      seen.push(...page.items.map((job) => job.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(LIMITS.rankedMatches);
    expect(new Set(seen).size).toBe(LIMITS.rankedMatches);
    for (let g = 1; g <= OLDER; g++) expect(seen).not.toContain(`job_bound_${g}`);
    // Sorted by newest, every match is there.
    const newest = await listJobs(
      database.db,
      listJobsQuerySchema.parse({ q: "zebra", sort: "newest", limit: "100" }),
    );
    expect(newest.items[0]!.id).toBe(`job_bound_${LIMITS.rankedMatches + OLDER}`);
  });
});
