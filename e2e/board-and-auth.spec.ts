// Filters and pagination live in the URL; the server's own messages reach the forms; signing
// out ends the session.
import {
  apiOk,
  createJob,
  expect,
  freshKey,
  KEYS,
  newActor,
  signInWithUi,
  test,
  walletReady,
} from "./fixtures";

test("board filters and pagination are in the URL", async ({ browser, baseURL, page }) => {
  const poster = await newActor(browser, baseURL!, freshKey());
  await poster.api.signIn();
  // "education" is used by no other spec: 21 jobs make two pages of 20.
  for (let index = 1; index <= 21; index += 1) {
    await createJob(poster.api, {
      title: `Course outline ${String(index).padStart(2, "0")}`,
      category: "education",
    });
  }
  await poster.context.close();

  await page.goto("/");
  await page.getByLabel("Category", { exact: true }).selectOption("education");
  await expect(page).toHaveURL(/\/\?category=education$/);
  await expect(page.getByTestId("job-card")).toHaveCount(20);
  await expect(page.getByTestId("job-card").first()).toContainText("Course outline 21");
  await page.getByRole("link", { name: "Next page" }).click();
  await expect(page).toHaveURL(/category=education&cursor=/);
  await expect(page.getByTestId("job-card")).toHaveCount(1);
  await expect(page.getByTestId("job-card")).toContainText("Course outline 01");
  await expect(page.getByRole("link", { name: "Next page" })).toHaveCount(0);
  await page.getByRole("link", { name: "First page" }).click();
  await expect(page.getByTestId("job-card")).toHaveCount(20);

  await page
    .getByRole("navigation", { name: "Filter by status" })
    .getByRole("link", { name: "Completed" })
    .click();
  await expect(page).toHaveURL(/\/\?status=completed&category=education$/);
  await expect(page.getByRole("heading", { name: "No completed jobs in Education" })).toBeVisible();
  await page.getByRole("link", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/$/);

  // A stale or forged cursor falls back to the first page instead of failing.
  await page.goto("/?category=education&cursor=not-a-cursor");
  await expect(
    page.getByText("That page link is no longer valid; showing the first page."),
  ).toBeVisible();
  await expect(page.getByTestId("job-card")).toHaveCount(20);
});

test("the agents directory filters by category", async ({ browser, baseURL, page }) => {
  const operator = await newActor(browser, baseURL!, freshKey());
  await operator.api.signIn();
  const name = `Helpdesk ${Date.now().toString(36)}`;
  await apiOk(operator.api.post("/api/v1/agents", { name, categories: ["customer_support"] }));
  await operator.context.close();

  await page.goto("/agents");
  await page.getByLabel("Category", { exact: true }).selectOption("legal");
  await expect(page).toHaveURL(/\/agents\?category=legal$/);
  await expect(page.getByRole("heading", { name: "No agents in Legal yet" })).toBeVisible();
  await page.getByLabel("Category", { exact: true }).selectOption("customer_support");
  await expect(page).toHaveURL(/\/agents\?category=customer_support$/);
  await expect(page.getByTestId("agent-card")).toHaveCount(1);
  await expect(page.getByTestId("agent-card")).toContainText(name);
});

test("the server's message reaches the form: posting without signing in", async ({ page }) => {
  await page.goto("/jobs/new");
  await expect(page.getByText("Sign in with your wallet to post a job.")).toBeVisible();
  await page.getByLabel("Title").fill("A job from nobody");
  await page.getByLabel("Description").fill("Should be refused by the server.");
  await page.getByLabel("Category", { exact: true }).selectOption("ops");
  await page.getByLabel("Budget (USDC)").fill("10");
  await page.getByLabel("Timeline (days)").fill("1");
  await page.getByRole("button", { name: "Post job" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "not signed in" })).toBeVisible();
  await expect(page).toHaveURL(/\/jobs\/new$/);
});

test("signing out ends the session", async ({ browser, baseURL }) => {
  const actor = await newActor(browser, baseURL!, KEYS.other);
  const { page } = actor;
  await page.goto("/agents/new");
  await walletReady(page);
  await signInWithUi(page);
  await expect(page.getByText("Sign in with your wallet to register an agent.")).toHaveCount(0);
  expect((await page.request.get("/api/auth/session")).status()).toBe(200);

  await page.getByTestId("account-button").click();
  await page.getByRole("dialog").getByRole("button", { name: "Disconnect" }).click();
  await expect(
    page.getByRole("banner").getByRole("button", { name: "Connect wallet" }),
  ).toBeVisible();
  await expect(page.getByText("Sign in with your wallet to register an agent.")).toBeVisible();
  expect((await page.request.get("/api/auth/session")).status()).toBe(401);
  await actor.context.close();
});
