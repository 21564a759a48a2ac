// Every page: an axe check (no serious or critical violations) and screenshots at phone and
// desktop width (test-results/screenshots), with realistic data in each state.
import type { Page } from "@playwright/test";
import {
  type Actor,
  apiOk,
  createJob,
  expect,
  expectAccessible,
  KEYS,
  newActor,
  newContext,
  payAndAccept,
  propose,
  registerAgent,
  screenshots,
  signInWithApi,
  signInWithUi,
  test,
  walletReady,
} from "./fixtures";

test.describe.configure({ mode: "serial" });

let poster: Actor;
let agent: Actor;
let visitor: Page;
let openJob: { id: string };
let doneJob: { id: string };
let agentRecord: { id: string };

test.beforeAll(async ({ browser, baseURL }) => {
  poster = await newActor(browser, baseURL!, KEYS.poster);
  agent = await newActor(browser, baseURL!, KEYS.agent);
  await signInWithApi(agent);
  await poster.api.signIn();
  visitor = await (await newContext(browser, baseURL)).newPage();

  const rival = await newActor(browser, baseURL!, KEYS.agent2);
  await rival.api.signIn();
  agentRecord = await registerAgent(agent.api, "Lumen Research");
  const rivalAgent = await registerAgent(rival.api, "Quillwright");

  // A finished job with a review, so the agent's profile and the board have real content.
  doneJob = await createJob(poster.api, {
    title: "Competitor pricing teardown for a B2B SaaS",
    category: "research",
    budgetUsdc: 180,
  });
  const won = await propose(agent.api, doneJob.id, agentRecord.id, 150);
  await payAndAccept(poster.api, doneJob.id, won.id);
  await apiOk(agent.api.post(`/api/v1/jobs/${doneJob.id}/deliver`, {}));
  await apiOk(
    poster.api.post(`/api/v1/jobs/${doneJob.id}/complete`, {
      rating: 5,
      comment: "Clear tables, every price sourced. Would hire again.",
    }),
  );

  openJob = await createJob(poster.api, {
    title: "Write onboarding emails for a developer tool",
    description:
      "Five emails for the first two weeks after sign-up.\nTone: friendly, technical, no hype. Include subject lines and a short rationale for each.",
    category: "writing",
    budgetUsdc: 320,
    timelineDays: 10,
    requirements: [
      "Five emails with subject lines",
      "Plain text and HTML versions",
      "One revision round",
    ],
  });
  await propose(agent.api, openJob.id, agentRecord.id, 290);
  const second = await propose(rival.api, openJob.id, rivalAgent.id, 240);
  await createJob(poster.api, {
    title: "Translate release notes into German and French",
    category: "translation",
    budgetUsdc: 75.5,
    timelineDays: 2,
  });
  await createJob(poster.api, {
    title: "Security review of an ERC-4626 vault",
    category: "security",
    budgetUsdc: 2400,
    timelineDays: 14,
  });
  void second;
  await rival.context.close();

  // The poster signs in through the UI, so the wallet is connected for the payment dialog.
  await poster.page.goto("/");
  await walletReady(poster.page);
  await signInWithUi(poster.page);
});

test.afterAll(async () => {
  await poster?.context.close();
  await agent?.context.close();
  await visitor?.context().close();
});

async function check(page: Page, name: string, options: { dark?: boolean } = {}) {
  await walletReady(page);
  await expectAccessible(page, name);
  await screenshots(page, name, options);
}

test("job board", async () => {
  await visitor.goto("/?status=all");
  await expect(visitor.getByTestId("job-card").first()).toBeVisible();
  await check(visitor, "board", { dark: true });
  await poster.page.goto("/");
  await check(poster.page, "board-signed-in");
});

test("job board, empty filter", async () => {
  await visitor.goto("/?category=legal");
  await expect(visitor.getByRole("heading", { name: "No open jobs in Legal" })).toBeVisible();
  await check(visitor, "board-empty");
});

test("post a job", async () => {
  await poster.page.goto("/jobs/new");
  await check(poster.page, "post-job");
  await poster.page.getByRole("button", { name: "Post job" }).click();
  await expect(poster.page.getByText("Title must not be empty")).toBeVisible();
  await check(poster.page, "post-job-errors");
});

test("job page: the poster's open job with proposals", async () => {
  await poster.page.goto(`/jobs/${openJob.id}`);
  await expect(poster.page.getByTestId("proposal")).toHaveCount(2);
  await check(poster.page, "job-open-poster", { dark: true });
});

test("job page: the payment dialog", async () => {
  const page = poster.page;
  await page.goto(`/jobs/${openJob.id}`);
  await page
    .getByRole("article", { name: "Proposal from Quillwright" })
    .getByRole("button", { name: "Pay & accept" })
    .click();
  const dialog = page.getByRole("dialog", { name: "Pay & accept" });
  await expect(dialog.getByTestId("payment-amount")).toHaveText("240.00 USDC");
  await expect(dialog.getByRole("button", { name: "Sign & pay 240.00 USDC" })).toBeEnabled();
  await expectAccessible(page, "payment dialog");
  await screenshots(page, "payment-dialog", { fullPage: false });
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(
    page
      .getByRole("article", { name: "Proposal from Quillwright" })
      .getByRole("button", { name: "Pay & accept" }),
  ).toBeFocused();
});

test("job page: a visitor and a bidding agent", async () => {
  await visitor.goto(`/jobs/${openJob.id}`);
  await check(visitor, "job-open-visitor");
  await agent.page.goto(`/jobs/${doneJob.id}`);
  await check(agent.page, "job-completed-agent");
});

test("agents directory", async () => {
  await visitor.goto("/agents");
  await expect(visitor.getByTestId("agent-card").first()).toBeVisible();
  await check(visitor, "agents");
});

test("agent profile", async () => {
  await visitor.goto(`/agents/${agentRecord.id}`);
  await expect(visitor.getByTestId("review").first()).toBeVisible();
  await check(visitor, "agent-profile", { dark: true });
});

test("register an agent", async () => {
  await agent.page.goto("/agents/new");
  await check(agent.page, "register-agent");
  await visitor.goto("/agents/new");
  await check(visitor, "register-agent-visitor");
});

test("not found", async () => {
  await visitor.goto("/jobs/job_does_not_exist");
  await expect(visitor.getByRole("heading", { name: "Not found" })).toBeVisible();
  await check(visitor, "not-found");
});

test("the sign-in modal", async () => {
  const page = agent.page;
  await page.context().clearCookies();
  await page.goto("/");
  await walletReady(page);
  await page
    .getByRole("banner")
    .getByRole("button", { name: /connect wallet|sign in/i })
    .click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await screenshots(page, "connect-modal", { fullPage: false });
  await expectAccessible(page, "connect modal");
});
