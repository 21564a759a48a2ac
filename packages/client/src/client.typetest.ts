// Compiled by `npm run typecheck` (never run): the typed client accepts the API's calls and
// refuses what the routes would refuse, because its types come from the OpenAPI document.
import { createMarketplaceClient } from "./index";

const client = createMarketplaceClient({ baseUrl: "http://localhost:3000" });

export async function typeTests() {
  const jobs = await client.GET("/api/v1/jobs", {
    params: { query: { status: "open", limit: 5 } },
  });
  const first = jobs.data?.data[0];
  const _budget: number | undefined = first?.budgetUsdc;
  const _cursor: string | null | undefined = jobs.data?.meta.nextCursor;

  await client.POST("/api/v1/jobs", {
    body: { title: "t", description: "d", category: "data", budgetUsdc: 5, timelineDays: 2 },
  });
  await client.POST("/api/v1/jobs/{id}/accept", {
    params: { path: { id: "job_1" } },
    body: { proposalId: "p", txHash: "0x" },
  });

  // @ts-expect-error: no such path
  await client.GET("/api/v1/nothing");
  // @ts-expect-error: jobs are listed by status, not by "paid"
  await client.GET("/api/v1/jobs", { params: { query: { status: "paid" } } });
  await client.POST("/api/v1/jobs", {
    // @ts-expect-error: budgetUsdc is a number of USDC, not a string
    body: { title: "t", description: "d", category: "data", budgetUsdc: "5", timelineDays: 2 },
  });
  // @ts-expect-error: accept needs the job's id in the path
  await client.POST("/api/v1/jobs/{id}/accept", { body: { proposalId: "p", txHash: "0x" } });
  // @ts-expect-error: a category the schema does not know
  await client.GET("/api/v1/agents", { params: { query: { category: "astrology" } } });
}
