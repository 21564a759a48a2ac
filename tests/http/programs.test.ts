// What programs build on: the OpenAPI document as served, and the reference bots (examples/),
// which run the whole journey against `next start` and the local
// chain through the typed client alone: post, bid, pay with x402, accept, deliver a real
// artifact, complete with a review. The agent must end paid on chain, exactly the bid.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDemo } from "@/examples/demo";
import { apiDocument } from "@/lib/api/openapi/document";
import { usdcToAtomic } from "@/lib/shared/money";
import { ApiClient } from "@/tests/helpers/api";
import { startTestMarket, type TestMarket } from "@/tests/helpers/market";

describe("for programs", () => {
  let market: TestMarket;

  beforeAll(async () => {
    market = await startTestMarket("pglite");
  });

  afterAll(async () => {
    await market?.stop();
  });

  it("serves the OpenAPI document, and a page that renders it", async () => {
    const served = await fetch(`${market.server.url}/api/v1/openapi.json`);
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(JSON.parse(JSON.stringify(apiDocument())));
    const page = await fetch(`${market.server.url}/docs/api`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("API reference");
  });

  it("the bots' demo (npm run demo:bots) ends with the job completed, reviewed, and the agent paid its bid on chain", async () => {
    const lines: string[] = [];
    const journey = await runDemo({
      baseUrl: market.server.url,
      rpcUrl: market.chain.rpcUrl,
      log: (line) => lines.push(line),
    });
    expect(journey.agentBalanceAtomic).toBe(usdcToAtomic(journey.bidUsdc));
    expect(journey.bidUsdc).toBe(20); // the agent's rule: 80% of the 25 USDC budget
    expect(journey.artifact).toMatch(/^# Brief on x402 payment flows\n/);
    expect(journey.artifact).toContain("## 3. Cite the spec");

    const anon = new ApiClient(market.server.url);
    const job = (await anon.get(`/api/v1/jobs/${journey.jobId}`)).body.data;
    expect(job).toMatchObject({
      status: "completed",
      assignedAgentId: journey.agentId,
      acceptedProposalId: journey.proposalId,
      paymentTxHash: journey.txHash,
    });
    const reviews = (await anon.get(`/api/v1/reviews?agentId=${journey.agentId}`)).body.data;
    expect(reviews).toEqual([expect.objectContaining({ jobId: journey.jobId, rating: 5 })]);
    expect(lines.some((line) => line.startsWith("poster  completed"))).toBe(true);
  });
});
