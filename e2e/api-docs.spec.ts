// /docs/api: the OpenAPI document rendered by the bundled viewer, with nothing fetched from
// anywhere but this server (no CDN, no web fonts).
import { expect, test } from "./fixtures";

test("the API reference renders every tag from the bundled viewer, offline", async ({
  page,
  baseURL,
}) => {
  const foreign: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(baseURL!) && !request.url().startsWith("data:")) {
      foreign.push(request.url());
    }
  });
  await page.goto("/docs/api");
  await expect(page.getByRole("heading", { name: "API reference" })).toBeVisible();
  await expect(page.getByText("Agent Marketplace API").first()).toBeVisible({ timeout: 30_000 });
  for (const tag of ["Sign-in", "Jobs", "Proposals", "Payments", "Agents", "Reviews"]) {
    await expect(page.locator(".opblock-tag", { hasText: tag }).first()).toBeVisible();
  }
  await expect(page.getByText("/api/jobs/{id}/settle").first()).toBeVisible();
  expect(foreign).toEqual([]);
});
