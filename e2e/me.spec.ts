// My work (/me): a poster and an operator run their week from it without the board. The
// poster rejects one bid and pays & accepts the other in place, the operator delivers in
// place, the poster confirms and rates in place; the money shows on both sides with its
// transaction hash. axe and phone/desktop screenshots of each view, and signed out.
import {
  type Actor,
  apiOk,
  createJob,
  expect,
  expectAccessible,
  KEYS,
  newActor,
  propose,
  rate,
  registerAgent,
  screenshots,
  signInWithApi,
  signInWithUi,
  slowScripts,
  test,
  unique,
  walletReady,
} from "./fixtures";

test.describe.configure({ mode: "serial" });

let poster: Actor;
let operator: Actor;
let jobId: string;
let agentName: string;
let rivalName: string;

const myJob = (actor: Actor, section: string, id: string) =>
  actor.page.getByTestId(`section-${section}`).locator(`[data-job-id="${id}"]`);

test.beforeAll(async ({ browser, baseURL }) => {
  poster = await newActor(browser, baseURL!, KEYS.poster2);
  operator = await newActor(browser, baseURL!, KEYS.other);
  const rival = await newActor(browser, baseURL!, KEYS.agent2);
  await Promise.all([signInWithApi(operator), poster.api.signIn(), rival.api.signIn()]);
  agentName = unique("Atlas");
  rivalName = unique("Rival");
  const agent = await registerAgent(operator.api, agentName);
  const rivalAgent = await registerAgent(rival.api, rivalName);

  const job = await createJob(poster.api, { title: unique("Clean a CSV of 10k leads") });
  jobId = job.id;
  await propose(operator.api, jobId, agent.id, 35);
  await propose(rival.api, jobId, rivalAgent.id, 30);
  // A job without bids yet.
  await createJob(poster.api, { title: unique("Name a developer tool") });
  await rival.context.close();

  await poster.page.goto("/me");
  await walletReady(poster.page);
  await signInWithUi(poster.page);
});

test.afterAll(async () => {
  await poster?.context.close();
  await operator?.context.close();
});

test("signed out, /me asks to sign in; the header shows no My work link", async ({ page }) => {
  await page.goto("/me");
  await expect(page.getByRole("heading", { name: "My work", level: 1 })).toBeVisible();
  await expect(page.getByText("Sign in with your wallet to see your jobs")).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByText("My work")).toHaveCount(0);
  await walletReady(page);
  await expectAccessible(page, "my work (signed out)");
  await screenshots(page, "me-signed-out");
});

test("the poster rejects one bid and pays & accepts the other from /me", async () => {
  const { page } = poster;
  await page.goto("/me");
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "My work" })
    .waitFor();
  const waiting = myJob(poster, "proposals_waiting", jobId);
  await expect(waiting).toContainText("2 proposals waiting for you");
  await walletReady(page);
  await expectAccessible(page, "my work (poster, bids waiting)");
  await screenshots(page, "me-poster", { dark: true });

  const rivalCard = waiting.getByRole("article", { name: `Proposal from ${rivalName}` });
  await rivalCard.getByRole("button", { name: "Reject" }).click();
  await rivalCard.getByRole("button", { name: "Yes, reject" }).click();
  await expect(waiting).toContainText("1 proposal waiting for you");

  const card = waiting.getByRole("article", { name: `Proposal from ${agentName}` });
  await card.getByRole("button", { name: "Pay & accept" }).click();
  const dialog = page.getByRole("dialog", { name: "Pay & accept" });
  await expect(dialog.getByTestId("payment-amount")).toHaveText("35.00 USDC");
  await dialog.getByRole("button", { name: "Sign & pay 35.00 USDC" }).click();
  await expect(dialog.getByTestId("payment-done")).toBeVisible({ timeout: 60_000 });
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(myJob(poster, "in_progress", jobId)).toBeVisible();
  await expect(myJob(poster, "proposals_waiting", jobId)).toHaveCount(0);
});

test("the operator sees the assignment and delivers from /me; earnings show the hash", async () => {
  const { page } = operator;
  await page.goto("/me");
  const toDeliver = myJob(operator, "to_deliver", jobId);
  await expect(toDeliver).toContainText(`Assigned to ${agentName} and paid`);
  const job = await apiOk(operator.api.get(`/api/v1/jobs/${jobId}`));
  await expect(
    page.locator(`[data-testid="transaction"][data-tx-hash="${job.paymentTxHash}"]`),
  ).toContainText(`Paid to ${agentName}`);
  await expect(page.getByTestId("earnings-summary")).toContainText(agentName);
  await expect(page.getByTestId("section-bids_accepted")).toContainText(agentName);
  await walletReady(page);
  await expectAccessible(page, "my work (operator, to deliver)");
  await screenshots(page, "me-operator", { dark: true });

  await toDeliver.getByRole("button", { name: "Mark as delivered" }).click();
  await expect(myJob(operator, "awaiting_confirmation", jobId)).toBeVisible();
  await expect(myJob(operator, "to_deliver", jobId)).toHaveCount(0);
});

test("the poster confirms and rates the delivery from /me; the spend shows", async () => {
  const { page } = poster;
  // The stars are pressed as soon as they show, before the form's code has run.
  await slowScripts(page);
  await page.goto("/me", { waitUntil: "commit" });
  const toConfirm = myJob(poster, "to_confirm", jobId);
  await expect(toConfirm).toBeVisible();
  await rate(toConfirm, 5);
  await toConfirm.getByRole("button", { name: "Confirm delivery & complete" }).click();
  await expect(myJob(poster, "done", jobId)).toBeVisible();
  // The spend summary and the payment with its hash (other specs' payments may be there too).
  const job = await apiOk(poster.api.get(`/api/v1/jobs/${jobId}`));
  await expect(page.getByTestId("spend-summary")).toContainText("Spent on my jobs");
  await expect(
    page.locator(`[data-testid="transaction"][data-tx-hash="${job.paymentTxHash}"]`),
  ).toContainText(`Paid by you to ${agentName}`);
  await page.goto("/me?section=done");
  await expect(myJob(poster, "done", jobId)).toBeVisible();
  await expect(page.getByTestId("section-proposals_waiting")).toHaveCount(0);
  await expectAccessible(page, "my work (poster, one section)");
  await screenshots(page, "me-poster-done");
});
