// The review views PostgreSQL writes as JSON (review-rows.ts) are byte for byte what
// toReviewView and JSON.stringify write from the same rows, on PGlite and PostgreSQL: text
// that needs escaping, a reviewer stored in lower case (checksummed on the way out) and one in
// a case no writer stores (taken as written by both), pages newest first whose keyset breaks a
// createdAt tie by id, an agent without reviews (no rows) and an unknown agent (undefined).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { miscasedAddress, newWallet } from "@/tests/helpers/in-process";
import { finishReviewJson, selectAgentReviewJson } from "./review-rows";
import { toReviewView } from "./serialize";

const AWKWARD = 'quotes " and \\ backslash, \n newline, \t tab, \u0001 control, é, 😀, </script>';

describe.each(DB_KINDS)("review views as JSON on %s", (kind) => {
  let database: TestDatabase;
  /** The reviews' ids newest first (createdAt, then id, descending). */
  const newestFirst: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const { db } = database;
    const operator = newWallet().address;
    for (const id of ["agent_reviewed", "agent_other", "agent_quiet"]) {
      await db.agent.create({ data: { id, name: id, operatorAddress: operator, categories: [] } });
    }
    const poster = newWallet().address;
    await db.wallet.create({ data: { address: poster } });
    // No writer stores it; the Node view and the JSON page both take it as written.
    const miscased = miscasedAddress(poster);
    const tie = new Date(Date.UTC(2026, 0, 2, 0, 0, 0, 5));
    const reviews = [
      { id: "rev_a", at: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 1)), comment: AWKWARD },
      { id: "rev_b", at: tie, comment: "" },
      { id: "rev_c", at: tie, comment: "tied" },
      { id: "rev_d", at: new Date(Date.UTC(2026, 0, 3)), comment: "newest" },
    ];
    for (const [index, review] of reviews.entries()) {
      const job = await db.job.create({
        data: {
          id: `job_reviewed_${index}`,
          title: "A job",
          description: "plain",
          category: "data",
          budgetAtomic: 1_000_000n,
          timelineDays: 1,
          handle: "@h",
          posterAddress: poster,
        },
      });
      await db.review.create({
        data: {
          id: review.id,
          agentId: "agent_reviewed",
          jobId: job.id,
          reviewerAddress: [poster.toLowerCase(), poster, miscased, poster][index]!,
          rating: 1 + index,
          comment: review.comment,
          createdAt: review.at,
        },
      });
    }
    await db.review.create({
      data: {
        id: "rev_other",
        agentId: "agent_other",
        jobId: "job_reviewed_0",
        reviewerAddress: operator,
        rating: 5,
        comment: "another agent's",
      },
    });
    newestFirst.push("rev_d", "rev_c", "rev_b", "rev_a");
  });
  afterAll(() => database?.close());

  const expected = async (id: string) =>
    JSON.stringify(toReviewView(await database.db.review.findUniqueOrThrow({ where: { id } })));

  it("writes an agent's reviews newest first, as toReviewView and JSON.stringify do", async () => {
    const rows = (await selectAgentReviewJson(database.db, "agent_reviewed", undefined, 10))!;
    expect(rows.map((row) => row.id)).toEqual(newestFirst);
    for (const row of rows) {
      expect(finishReviewJson(row.json)).toBe(await expected(row.id));
      expect(row.createdAt).toBe((JSON.parse(row.json) as { createdAt: string }).createdAt);
    }
  });

  // Outside UTC too: node-postgres writes a Date parameter in the process's time zone.
  it.for(["UTC", "America/New_York"])(
    "pages after a key, through a createdAt tie, at most `limit` (TZ=%s)",
    async (zone) => {
      const saved = process.env.TZ;
      process.env.TZ = zone;
      try {
        const first = (await selectAgentReviewJson(database.db, "agent_reviewed", undefined, 2))!;
        expect(first.map((row) => row.id)).toEqual(newestFirst.slice(0, 2));
        const last = first.at(-1)!;
        const after = { createdAt: new Date(last.createdAt), id: last.id };
        const rest = (await selectAgentReviewJson(database.db, "agent_reviewed", after, 10))!;
        expect(rest.map((row) => row.id)).toEqual(newestFirst.slice(2));
      } finally {
        if (saved === undefined) delete process.env.TZ;
        else process.env.TZ = saved;
      }
    },
  );

  it("answers no rows for an agent without reviews, undefined for no agent", async () => {
    expect(await selectAgentReviewJson(database.db, "agent_quiet", undefined, 10)).toEqual([]);
    expect(await selectAgentReviewJson(database.db, "agent_none", undefined, 10)).toBeUndefined();
  });
});
