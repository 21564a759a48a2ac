// The private thread on the job page and the notification bell: the agent asks under its
// proposal, the poster sees the bell's count and the thread's unread badge, answers, reads
// and marks the rest read on /notifications; a visitor sees no thread. Axe and screenshots
// (phone and desktop) on each new view.
import type { Page } from "@playwright/test";
import {
  type Actor,
  createJob,
  expect,
  expectAccessible,
  freshKey,
  newActor,
  newContext,
  propose,
  registerAgent,
  screenshots,
  signInWithApi,
  test,
  walletReady,
} from "./fixtures";

test.describe.configure({ mode: "serial" });

let poster: Actor;
let agent: Actor;
let visitor: Page;
let job: { id: string };
let proposalId: string;

test.beforeAll(async ({ browser, baseURL }) => {
  poster = await newActor(browser, baseURL!, freshKey());
  agent = await newActor(browser, baseURL!, freshKey());
  await Promise.all([signInWithApi(poster), signInWithApi(agent)]);
  visitor = await (await newContext(browser, baseURL)).newPage();
  job = await createJob(poster.api, {
    title: "Landing page copy for a payments API",
    category: "writing",
    budgetUsdc: 120,
  });
  const lens = await registerAgent(agent.api, "Lens Copy");
  proposalId = (await propose(agent.api, job.id, lens.id, 95)).id;
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

const threadOf = (page: Page) =>
  page.locator(`[data-proposal-id="${proposalId}"]`).locator("xpath=..").getByTestId("thread");

test("the agent asks in its proposal's private thread", async () => {
  const page = agent.page;
  await page.goto(`/jobs/${job.id}`);
  const thread = threadOf(page);
  await thread.getByText("Private conversation").click();
  await thread.getByRole("button", { name: "Send" }).click();
  await expect(thread.getByText("Message must not be empty")).toBeVisible();
  await thread.getByRole("textbox", { name: "Message" }).fill("Should the copy mention pricing?");
  await thread.getByRole("button", { name: "Send" }).click();
  await expect(thread.getByRole("list", { name: "Messages" })).toContainText(
    "Should the copy mention pricing?",
  );
  await check(page, "job-thread-agent");
});

test("the poster sees the bell and the unread thread, and answers", async () => {
  const page = poster.page;
  await page.goto("/");
  // A new proposal and a new message.
  await expect(page.getByTestId("notification-count")).toHaveText("2");
  // The page as served says "1 unread" (reading it changes nothing); the live page then
  // marks the shown message read, so its badge's moment is a race and is read from the HTML.
  const served = await (await page.request.get(`/jobs/${job.id}`)).text();
  expect(served).toMatch(/data-testid="thread-unread"[^>]*>1<!-- --> unread/);
  await page.goto(`/jobs/${job.id}`);
  const thread = threadOf(page);
  await expect(thread).toHaveAttribute("open", "");
  await expect(thread).toContainText("Should the copy mention pricing?");
  await check(page, "job-thread-poster", { dark: true });
  await thread
    .getByRole("textbox", { name: "Message" })
    .fill("Yes: one line, and a link to the pricing page.");
  await thread.getByRole("button", { name: "Send" }).click();
  await expect(thread.getByRole("list", { name: "Messages" })).toContainText("one line");
  // Showing the thread read the message: only the proposal is left.
  await expect(page.getByTestId("notification-count")).toHaveText("1");
});

test("notifications: the list, mark all read, the bell empties", async () => {
  const page = poster.page;
  await page.getByTestId("notification-bell").click();
  await expect(page.getByRole("heading", { name: "Notifications", level: 1 })).toBeVisible();
  await expect(page.getByTestId("notification")).toHaveCount(2);
  await expect(page.getByRole("heading", { name: "1 unread" })).toBeVisible();
  await check(page, "notifications", { dark: true });
  await page.getByRole("button", { name: "Mark all read" }).click();
  await expect(page.getByRole("heading", { name: "All read" })).toBeVisible();
  await expect(page.getByTestId("notification-count")).toHaveCount(0);

  await agent.page.goto("/notifications");
  await expect(agent.page.getByTestId("notification")).toHaveCount(1);
  await expect(agent.page.getByTestId("notification")).toContainText("New message");
  await check(agent.page, "notifications-agent");
});

test("a visitor sees no thread and no bell; /notifications asks to sign in", async () => {
  await visitor.goto(`/jobs/${job.id}`);
  await expect(visitor.getByTestId("proposal")).toHaveCount(1);
  await expect(visitor.getByTestId("thread")).toHaveCount(0);
  await expect(visitor.getByTestId("notification-bell")).toHaveCount(0);
  await visitor.goto("/notifications");
  await expect(
    visitor.getByText("Sign in with your wallet to see your notifications."),
  ).toBeVisible();
  await check(visitor, "notifications-signed-out");
});
