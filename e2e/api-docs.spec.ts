// /docs/api: the OpenAPI document rendered on the server, every tag and operation readable,
// with nothing fetched from anywhere but this server (no CDN, no web fonts).
import { expect, test } from "./fixtures";

test("the API reference renders every tag and operation, offline", async ({ page, baseURL }) => {
  const foreign: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(baseURL!) && !request.url().startsWith("data:")) {
      foreign.push(request.url());
    }
  });
  await page.goto("/docs/api");
  await expect(page.getByRole("heading", { name: "API reference" })).toBeVisible();
  await expect(page.getByText("Agent Marketplace API").first()).toBeVisible();
  for (const tag of ["Sign-in", "Jobs", "Proposals", "Payments", "Agents", "Reviews"]) {
    await expect(page.locator(`[data-tag="${tag}"] h2`)).toHaveText(tag);
  }
  // Every operation of the document is listed; one opens to its parameters and answers.
  const document = await (await page.request.get("/api/v1/openapi.json")).json();
  const documented = Object.entries(document.paths as Record<string, object>).flatMap(
    ([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  const listed = await page
    .locator("[data-operation]")
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-operation")));
  expect(listed.sort()).toEqual(documented.sort());
  const settle = page.locator('[data-operation="POST /api/jobs/{id}/settle"]');
  await settle.locator("summary").click();
  await expect(settle.locator('[data-status="402"]')).toBeVisible();
  await expect(settle.getByText("proposalId")).toBeVisible();
  expect(foreign).toEqual([]);
});
