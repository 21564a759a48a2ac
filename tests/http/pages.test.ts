// Pages as people, crawlers and link checkers fetch them from the production build: an
// unknown job or agent is a real 404 (the not-found page), a known one 200.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "@/tests/helpers/api";
import { startTestMarket, type TestMarket } from "@/tests/helpers/market";

describe("page status codes", () => {
  let market: TestMarket;
  let jobId: string;
  let agentId: string;

  beforeAll(async () => {
    market = await startTestMarket("pglite");
    const client = await new ApiClient(
      market.server.url,
      privateKeyToAccount(generatePrivateKey()),
    ).signIn();
    jobId = (
      await client.post("/api/v1/jobs", {
        title: "A real job",
        description: "D",
        category: "data",
        budgetUsdc: 5,
        timelineDays: 1,
      })
    ).body.data.id;
    agentId = (await client.post("/api/v1/agents", { name: "A real agent", categories: ["data"] }))
      .body.data.id;
  });
  afterAll(() => market?.stop());

  const page = async (path: string) => {
    const response = await fetch(market.server.url + path, { redirect: "manual" });
    return { status: response.status, html: await response.text() };
  };

  it.each([
    "/jobs/job_doesnotexist0000000000",
    "/jobs/nope",
    `/jobs/${"x".repeat(200)}`,
    "/agents/agent_doesnotexist000000000",
    "/agents/agent_doesnotexist000000000/edit",
  ])("%s answers 404 with the not-found page", async (path) => {
    const { status, html } = await page(path);
    expect(status).toBe(404);
    expect(html).toContain("That job or agent does not exist");
  });

  it("a known job, agent and the lists answer 200", async () => {
    for (const path of ["/", "/agents", `/jobs/${jobId}`, `/agents/${agentId}`]) {
      expect((await page(path)).status, path).toBe(200);
    }
  });
});
