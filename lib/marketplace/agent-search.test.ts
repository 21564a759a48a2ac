// The agent directory's search and sorts, in-process on PGlite: a name search that takes % and
// _ literally, sorts by mean rating and by completed jobs (computed, never stored, from jobs
// paid at least the minimum by someone other than the agent's side), and keyset
// pages that see every agent once under each sort, ties included.
import { describe, expect, it } from "@/tests/helpers/fixture";
import { listAgentsQuerySchema } from "@/lib/shared/schemas/agents";
import {
  agentInput,
  type InProcessMarket,
  newWallet,
  seedPaidJob,
} from "@/tests/helpers/in-process";
import { listAgents, registerAgent } from "./agents";

const ids: Record<string, string> = {};

const list = async (market: InProcessMarket, query: Record<string, string>) => {
  const page = await listAgents(market.db, listAgentsQuerySchema.parse(query));
  return { ids: page.items.map((agent) => agent.id), nextCursor: page.nextCursor };
};

/**
 * Gives `agentId` reviews with these ratings and `completed` completed jobs, each on a job a
 * poster paid it (at least the minimum: only such jobs count). `dust` adds as many jobs paid
 * below the minimum, each reviewed 5 and completed: they must change nothing.
 */
async function history(
  market: InProcessMarket,
  agentId: string,
  ratings: number[],
  completed: number,
  dust = 0,
) {
  const poster = newWallet();
  const jobs = Math.max(ratings.length, completed);
  for (let i = 0; i < jobs + dust; i++) {
    const paid = i < jobs;
    const jobId = await seedPaidJob(market.db, {
      posterAddress: poster.address,
      agentId,
      amountAtomic: paid ? 20_000_000n : 1n,
      status: !paid || i < completed ? "completed" : "in_progress",
    });
    const rating = paid ? ratings[i] : 5;
    if (rating !== undefined) {
      await market.db.review.create({
        data: {
          id: `rev_${agentId}_${i}`,
          agentId,
          jobId,
          reviewerAddress: poster.address,
          rating,
          comment: "",
        },
      });
    }
  }
}

it.beforeAll(async ({ market }) => {
  const operator = newWallet();
  for (const name of ["Lumen Research", "Atlas 100%_Bot", "Quill Writer", "Lumen Labs"]) {
    ids[name] = (await registerAgent(market.db, operator.address, agentInput({ name }))).id;
  }
  await history(market, ids["Lumen Research"]!, [5, 4], 1); // 4.5, 1 completed
  await history(market, ids["Atlas 100%_Bot"]!, [5], 3); // 5.0, 3 completed
  await history(market, ids["Quill Writer"]!, [], 0, 3); // only dust-paid jobs: 0, none completed
  await history(market, ids["Lumen Labs"]!, [3], 1, 2); // 3.0, 1 completed (and two dust jobs)
});

describe("GET /api/v1/agents search and sort", () => {
  it.for([
    ["q=lumen, newest first", { q: "lumen" }, ["Lumen Labs", "Lumen Research"]],
    ["q takes % and _ literally", { q: "100%_" }, ["Atlas 100%_Bot"]],
    ["q=%, no wildcard", { q: "%" }, ["Atlas 100%_Bot"]],
    [
      "rating, highest first",
      { sort: "rating" },
      ["Atlas 100%_Bot", "Lumen Research", "Lumen Labs", "Quill Writer"],
    ],
    [
      "completed_jobs, ties newest first",
      { sort: "completed_jobs" },
      ["Atlas 100%_Bot", "Lumen Labs", "Lumen Research", "Quill Writer"],
    ],
    ["q with a sort", { q: "lumen", sort: "rating" }, ["Lumen Research", "Lumen Labs"]],
  ] as [string, Record<string, string>, string[]][])(
    "%s",
    async ([_name, query, expected], { market }) => {
      expect((await list(market, query)).ids).toEqual(expected.map((name) => ids[name]));
    },
  );

  it.for(["newest", "rating", "completed_jobs"])(
    "%s: pages of one see every agent once, in the one-page order",
    async (sort, { market }) => {
      const whole = (await list(market, { sort })).ids;
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await list(market, { sort, limit: "1", ...(cursor ? { cursor } : {}) });
        paged.push(...page.ids);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(paged).toEqual(whole);
    },
  );

  it("refuses an unknown sort and a cursor of another sort", async ({ market }) => {
    expect(() => listAgentsQuerySchema.parse({ sort: "cheapest" })).toThrow(/sort must be one of/);
    const { nextCursor } = await list(market, { sort: "rating", limit: "1" });
    await expect(list(market, { sort: "completed_jobs", cursor: nextCursor! })).rejects.toThrow(
      /cursor is not valid for sort=completed_jobs/,
    );
  });
});
