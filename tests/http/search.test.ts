// GET /api/v1/jobs search and sort over HTTP (the domain's table is in
// lib/marketplace/job-search.test.ts): the query string's rules, the ranking, the budget
// bounds, a page walk, and the board (/) rendering the same search from its URL.
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "@/tests/helpers/api";
import { startTestMarket, type TestMarket } from "@/tests/helpers/market";

describe("job search over HTTP", () => {
  let market: TestMarket;
  let anon: ApiClient;
  const ids: string[] = [];

  beforeAll(async () => {
    market = await startTestMarket("pglite");
    const { server } = market;
    anon = new ApiClient(server.url);
    const poster = await new ApiClient(
      server.url,
      privateKeyToAccount(generatePrivateKey()),
    ).signIn();
    for (const [title, budgetUsdc] of [
      ["Summarise PDF invoices", 30],
      ["Write release notes", 45.5],
      ["Extract tables from a PDF", 45.5],
    ] as const) {
      const created = await poster.post("/api/v1/jobs", {
        title,
        description: "Details inside.",
        category: "data",
        budgetUsdc,
        timelineDays: 2,
      });
      expect(created.status).toBe(201);
      ids.push(created.body.data.id);
    }
  });

  afterAll(async () => {
    await market?.stop();
  });

  const titles = async (query: string) => {
    const response = await anon.get(`/api/v1/jobs?${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data.map((job: { title: string }) => job.title);
  };

  it.each([
    ["q=pdf", ["Extract tables from a PDF", "Summarise PDF invoices"]],
    ["q=pdf&maxBudgetUsdc=30", ["Summarise PDF invoices"]],
    ["minBudgetUsdc=45.5&sort=budget_desc", ["Extract tables from a PDF", "Write release notes"]],
    [
      "sort=budget_asc&category=data",
      ["Summarise PDF invoices", "Write release notes", "Extract tables from a PDF"],
    ],
    ["q=nothing-like-this", []],
  ])("%s", async (query, expected) => {
    expect(await titles(query)).toEqual(expected);
  });

  it.each([
    ["sort=relevance", "sort=relevance needs q"],
    ["sort=cheapest", "sort must be one of"],
    ["minBudgetUsdc=abc", "minBudgetUsdc must be a number"],
    ["minBudgetUsdc=10&maxBudgetUsdc=5", "must not be more than maxBudgetUsdc"],
    [`q=${"x".repeat(201)}`, "q must be at most 200 characters"],
    ["sort=budget_desc&cursor=bm90LWEtY3Vyc29y", "cursor is not valid for sort=budget_desc"],
  ])("400 for %s", async (query, message) => {
    const response = await anon.get(`/api/v1/jobs?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(message);
  });

  it("walks a budget sort in pages of one with the ties in a stable order", async () => {
    const seen: string[] = [];
    let cursor = "";
    do {
      const page = await anon.get(`/api/v1/jobs?sort=budget_desc&limit=1${cursor}`);
      seen.push(...page.body.data.map((job: { id: string }) => job.id));
      cursor = page.body.meta.nextCursor ? `&cursor=${page.body.meta.nextCursor}` : "";
    } while (cursor);
    expect(seen).toHaveLength(3);
    expect(seen[2]).toBe(ids[0]); // 30 USDC, last; the two at 45.5 newest first
    expect(seen.slice(0, 2)).toEqual([ids[2], ids[1]]);
  });

  it("the board renders the same search from its URL, and says when a search is invalid", async () => {
    const html = await (await fetch(`${market.server.url}/?q=pdf&sort=budget_asc`)).text();
    expect(html).toContain("Summarise PDF invoices");
    expect(html).toContain("Extract tables from a PDF");
    expect(html).not.toContain("Write release notes");
    const bad = await (await fetch(`${market.server.url}/?sort=relevance`)).text();
    expect(bad).toContain("The search was not applied");
  });
});
