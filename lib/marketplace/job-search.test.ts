// Search and sort of the job list, in-process on PGlite: a table of queries → the expected
// jobs in order (ranking: a title match above a description match above a requirement),
// inclusive budget bounds, and keyset pages that neither skip nor repeat a job under every
// sort, with ties in the sort key and in createdAt across page boundaries.
import { describe, expect, it } from "@/tests/helpers/fixture";
import { DomainError } from "@/lib/platform/errors";
import { listJobsQuerySchema } from "@/lib/shared/schemas/jobs";
import { type InProcessMarket, jobInput, newWallet } from "@/tests/helpers/in-process";
import { searchText } from "./job-search";
import { createJob, listJobs } from "./jobs";

const ids: Record<string, string> = {};

const JOBS = {
  pdfTitle: { title: "PDF summarisation of contracts", description: "Legal text.", budgetUsdc: 40 },
  pdfBody: { title: "Contract review", description: "Summarise each PDF we send.", budgetUsdc: 50 },
  pdfRequirement: {
    title: "Quarterly report",
    description: "Numbers and charts.",
    requirements: ["Accept PDF input"],
    budgetUsdc: 50,
  },
  translation: { title: "Translate a website", description: "German to French.", budgetUsdc: 60 },
  cheap: { title: "Tag photos", description: "Label 100 images.", budgetUsdc: 5 },
};

const list = async (market: InProcessMarket, query: Record<string, string>) => {
  const page = await listJobs(market.db, listJobsQuerySchema.parse(query));
  return { ids: page.items.map((job) => job.id), nextCursor: page.nextCursor };
};

it.beforeAll(async ({ market }) => {
  const poster = newWallet();
  for (const [name, fields] of Object.entries(JOBS)) {
    ids[name] = (await createJob(market.db, poster.address, jobInput(fields))).id;
  }
});

describe("q as websearch_to_tsquery reads it", () => {
  it.for([
    ["40 dashes before a word", `${"-".repeat(40)}pdf`],
    ["a word and 40 dashes", `pdf ${"-".repeat(40)}`],
    ["spaced dashes", `pdf ${"- ".repeat(40)}`],
    ["dashes between words", `pdf ${"-".repeat(60)} contract`],
    ["a dash in a word", "e-mail"],
  ] as const)("%s: an answer, never 'tsquery stack too small'", async ([_what, q], { market }) => {
    await expect(list(market, { q })).resolves.toBeDefined();
  });

  it("refuses a q with no word in it (400), as the route's schema does", async ({ market }) => {
    await expect(list(market, { q: "-".repeat(40) })).rejects.toThrow(
      "q must contain a word to search for",
    );
  });

  it("keeps what a dash means: a word to leave out", async ({ market }) => {
    expect(searchText("pdf -contract")).toBe("pdf -contract");
    expect(searchText("pdf ---- - -contract")).toBe("pdf -contract");
    expect(searchText("pdf ----")).toBe("pdf  ");
    expect((await list(market, { q: "pdf ------contract" })).ids).toEqual([ids.pdfRequirement]);
  });
});

describe("GET /api/v1/jobs search and sort", () => {
  it.for([
    [
      "q=pdf ranks title, then description, then requirements",
      { q: "pdf" },
      ["pdfTitle", "pdfBody", "pdfRequirement"],
    ],
    ["q with stemming (summarise ~ summarisation)", { q: "summarise" }, ["pdfTitle", "pdfBody"]],
    ["q with a phrase", { q: '"german to french"' }, ["translation"]],
    ["q matching nothing", { q: "blockchain" }, []],
    ["q plus a budget ceiling (inclusive)", { q: "pdf", maxBudgetUsdc: "40" }, ["pdfTitle"]],
    [
      "budget bounds are inclusive",
      { minBudgetUsdc: "50", maxBudgetUsdc: "60", sort: "budget_asc" },
      ["pdfBody", "pdfRequirement", "translation"],
    ],
    [
      "budget_desc, ties newest first",
      { sort: "budget_desc", minBudgetUsdc: "40" },
      ["translation", "pdfRequirement", "pdfBody", "pdfTitle"],
    ],
    [
      "budget_asc, ties oldest first",
      { sort: "budget_asc" },
      ["cheap", "pdfTitle", "pdfBody", "pdfRequirement", "translation"],
    ],
    [
      "q sorted by budget instead of rank",
      { q: "pdf", sort: "budget_asc" },
      ["pdfTitle", "pdfBody", "pdfRequirement"],
    ],
  ] as [string, Record<string, string>, (keyof typeof JOBS)[]][])(
    "%s",
    async ([_name, query, expected], { market }) => {
      expect((await list(market, query)).ids).toEqual(expected.map((name) => ids[name]));
    },
  );

  it("refuses what it cannot answer: relevance without q, min above max, a foreign cursor", async ({
    market,
  }) => {
    expect(() => listJobsQuerySchema.parse({ sort: "relevance" })).toThrow(/needs q/);
    expect(() => listJobsQuerySchema.parse({ minBudgetUsdc: "9", maxBudgetUsdc: "8" })).toThrow(
      /must not be more than/,
    );
    expect(() => listJobsQuerySchema.parse({ minBudgetUsdc: "0.0000001" })).toThrow(/6 decimal/);
    const { nextCursor } = await list(market, { sort: "budget_desc", limit: "1" });
    await expect(list(market, { sort: "budget_asc", cursor: nextCursor! })).rejects.toThrow(
      DomainError,
    );
    await expect(list(market, { cursor: nextCursor! })).rejects.toThrow(/cursor is not valid/);
  });
});

describe("keyset pages under every sort, with ties across page boundaries", () => {
  const tied: string[] = [];

  it.beforeAll(async ({ market }) => {
    // Twelve jobs with one budget and one createdAt: only the id breaks the tie.
    const poster = newWallet();
    for (let i = 0; i < 12; i++) {
      const job = await createJob(
        market.db,
        poster.address,
        jobInput({ title: `Tied search job ${i}`, budgetUsdc: 33 }),
      );
      tied.push(job.id);
    }
    await market.db.job.updateMany({
      where: { id: { in: tied } },
      data: { createdAt: new Date("2026-06-01T00:00:00.000Z") },
    });
  });

  it.for([
    ["newest", { category: "research" }],
    ["budget_desc", { sort: "budget_desc" }],
    ["budget_asc", { sort: "budget_asc" }],
    ["relevance", { q: "tied search job" }],
    [
      "budget_desc within a budget",
      { sort: "budget_desc", minBudgetUsdc: "33", maxBudgetUsdc: "33" },
    ],
  ] as const)(
    "%s: pages of 5 see every job once, in the one-page order",
    async ([_name, query], { market }) => {
      const whole = (await list(market, { ...query, limit: "100" })).ids;
      expect(whole.length).toBeGreaterThanOrEqual(12);
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await list(market, { ...query, limit: "5", ...(cursor ? { cursor } : {}) });
        paged.push(...page.ids);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(paged).toEqual(whole);
      expect(new Set(paged).size).toBe(paged.length);
    },
  );
});

describe("poster: the jobs one wallet posted", () => {
  it("lists only that wallet's jobs under any sort, the address in any case", async ({
    market,
  }) => {
    const poster = newWallet();
    const cheaper = await createJob(
      market.db,
      poster.address,
      jobInput({ title: "Poster filter PDF one", budgetUsdc: 7 }),
    );
    const dearer = await createJob(
      market.db,
      poster.address,
      jobInput({ title: "Poster filter PDF two", budgetUsdc: 8 }),
    );
    const lower = poster.address.toLowerCase();
    expect((await list(market, { poster: lower, sort: "budget_desc" })).ids).toEqual([
      dearer.id,
      cheaper.id,
    ]);
    expect((await list(market, { poster: lower })).ids.sort()).toEqual(
      [cheaper.id, dearer.id].sort(),
    );
    expect(
      (await list(market, { poster: poster.address, q: "pdf", sort: "budget_asc" })).ids,
    ).toEqual([cheaper.id, dearer.id]);
    expect((await list(market, { poster: newWallet().address })).ids).toEqual([]);
    expect(() => listJobsQuerySchema.parse({ poster: "0x123" })).toThrow(
      "poster is not a valid wallet address",
    );
  });
});
