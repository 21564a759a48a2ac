// A week from notifications and /me, in two browsers: a new proposal rings the poster's bell;
// the poster opens the proposal's private thread and asks a question; the operator, told by
// its own bell, answers; the poster pays and accepts from /me; the operator's earnings on /me
// rise by the bid, with the transaction's hash.
import type { Page } from "@playwright/test";
import { GANACHE_PRIVATE_KEYS } from "@/dev/local-chain";
import {
  type Actor,
  apiOk,
  createJob,
  expect,
  newActor,
  propose,
  registerAgent,
  signInWithApi,
  signInWithUi,
  test,
  unique,
  walletReady,
} from "./fixtures";

test.describe.configure({ mode: "serial" });

// Funded demo accounts no other spec pays from.
const POSTER_KEY = GANACHE_PRIVATE_KEYS[7];
const OPERATOR_KEY = GANACHE_PRIVATE_KEYS[8];
const BID_USDC = 42.5;

let poster: Actor;
let operator: Actor;
let jobId: string;
let proposalId: string;
let agentName: string;

const bellCount = (page: Page) => page.getByTestId("notification-count");
const threadOf = (page: Page) =>
  page.locator(`[data-proposal-id="${proposalId}"]`).locator("xpath=..").getByTestId("thread");

/** What /me shows the operator as earned in total, in USDC (0 before the first payment). */
async function earnedUsdc(page: Page): Promise<number> {
  await page.goto("/me");
  const summary = page.getByTestId("earnings-summary");
  await expect(summary).toBeVisible();
  const text = (await summary.locator("p").first().innerText()).replace(/,/g, "");
  return Number(/([\d.]+)/.exec(text)?.[1] ?? "0");
}

let earnedBefore: number;

test.beforeAll(async ({ browser, baseURL }) => {
  poster = await newActor(browser, baseURL!, POSTER_KEY);
  operator = await newActor(browser, baseURL!, OPERATOR_KEY);
  await Promise.all([poster.api.signIn(), signInWithApi(operator)]);
  agentName = unique("Quill");
  const agent = await registerAgent(operator.api, agentName);
  const job = await createJob(poster.api, {
    title: unique("Release notes for v2.0"),
    category: "research",
    budgetUsdc: 60,
  });
  jobId = job.id;
  earnedBefore = await earnedUsdc(operator.page);

  // The poster signs in through the UI (the wallet is then connected for the payment).
  await poster.page.goto("/");
  await walletReady(poster.page);
  await signInWithUi(poster.page);
  await expect(bellCount(poster.page)).toHaveCount(0);

  proposalId = (await propose(operator.api, jobId, agent.id, BID_USDC)).id;
});

test.afterAll(async () => {
  await poster?.context.close();
  await operator?.context.close();
});

test("the poster's bell rings for the new proposal; the thread takes a question", async () => {
  const { page } = poster;
  await page.reload();
  await expect(bellCount(page)).toHaveText("1");
  await page.getByTestId("notification-bell").click();
  const notification = page.getByTestId("notification").first();
  await expect(notification).toContainText("New proposal on your job");
  await notification.getByRole("link").first().click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${jobId}$`));

  const thread = threadOf(page);
  await thread.getByText("Private conversation").click();
  await thread
    .getByRole("textbox", { name: "Message" })
    .fill("Can you cover the breaking changes first?");
  await thread.getByRole("button", { name: "Send" }).click();
  await expect(thread.getByRole("list", { name: "Messages" })).toContainText(
    "breaking changes first",
  );
});

test("the operator is told of the question and answers in the thread", async () => {
  const { page } = operator;
  await page.goto("/notifications");
  await expect(page.getByTestId("notification").first()).toContainText("New message");
  await page.goto(`/jobs/${jobId}`);
  const thread = threadOf(page);
  // Unread, the thread opens on its own; shown, it is marked read (its badge goes, the open
  // thread stays). The badge's moment between the two is a race, so it is not asserted here.
  await expect(thread).toHaveAttribute("open", "");
  await expect(thread.getByTestId("thread-unread")).toHaveCount(0);
  await expect(thread).toContainText("Can you cover the breaking changes first?");
  await thread
    .getByRole("textbox", { name: "Message" })
    .fill("Yes: breaking changes, then features, then fixes.");
  await thread.getByRole("button", { name: "Send" }).click();
  await expect(thread.getByRole("list", { name: "Messages" })).toContainText("then fixes");
});

test("the poster reads the answer, then pays and accepts from /me", async () => {
  const { page } = poster;
  await page.goto(`/jobs/${jobId}`);
  const thread = threadOf(page);
  // Unread, the thread opens on its own; shown, it is marked read (its badge goes, the open
  // thread stays). The badge's moment between the two is a race, so it is not asserted here.
  await expect(thread).toHaveAttribute("open", "");
  await expect(thread.getByTestId("thread-unread")).toHaveCount(0);
  await expect(thread).toContainText("breaking changes, then features, then fixes");

  await page.goto("/me");
  const waiting = page.getByTestId("section-proposals_waiting").locator(`[data-job-id="${jobId}"]`);
  const card = waiting.getByRole("article", { name: `Proposal from ${agentName}` });
  await card.getByRole("button", { name: "Pay & accept" }).click();
  const dialog = page.getByRole("dialog", { name: "Pay & accept" });
  await expect(dialog.getByTestId("payment-amount")).toHaveText("42.50 USDC");
  await dialog.getByRole("button", { name: "Sign & pay 42.50 USDC" }).click();
  await expect(dialog.getByTestId("payment-done")).toBeVisible({ timeout: 60_000 });
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(
    page.getByTestId("section-in_progress").locator(`[data-job-id="${jobId}"]`),
  ).toBeVisible();
});

test("the operator's bell says accepted; earnings on /me rose by the bid, with the hash", async () => {
  const { page } = operator;
  await page.goto("/notifications");
  await expect(page.getByTestId("notification").first()).toContainText(
    "Your proposal was accepted and paid",
  );
  expect(await earnedUsdc(page)).toBeCloseTo(earnedBefore + BID_USDC, 6);
  const job = await apiOk(operator.api.get(`/api/v1/jobs/${jobId}`));
  expect(job).toMatchObject({ status: "in_progress", acceptedProposalId: proposalId });
  await expect(
    page.locator(`[data-testid="transaction"][data-tx-hash="${job.paymentTxHash}"]`),
  ).toContainText(`Paid to ${agentName}`);
});
