// The whole marketplace in the browser, two wallets in two browser contexts (and a third
// agent over the API): post, register, bid, reject, pay & accept, deliver, download,
// complete with a review, and what that changes on the agent's profile and the board.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { privateKeyToAccount } from "viem/accounts";
import { ApiClient } from "@/tests/helpers/api";
import {
  type Actor,
  apiOk,
  expect,
  expectAccessible,
  KEYS,
  newActor,
  propose,
  rate,
  registerAgent,
  screenshots,
  signInWithUi,
  test,
  tokenBalance,
  walletReady,
} from "./fixtures";

test.describe.configure({ mode: "serial" });

let poster: Actor;
let agent: Actor;
let jobUrl: string;
let jobId: string;
let agentId: string;
let agentName: string;
const title = `Market map of EU battery startups ${Date.now().toString(36)}`;
const deliveredText = "# Findings\n\n42 startups, 7 segments.\n";
// The full 10 MiB of attachments: about 13.4 MiB once base64-encoded in the JSON body, past
// the old 12 MiB limit and within the 16 MiB one.
const MiB = 1024 * 1024;
const dataset = randomBytes(5 * MiB);
const appendix = randomBytes(5 * MiB - Buffer.byteLength(deliveredText));

test.beforeAll(async ({ browser, baseURL }) => {
  poster = await newActor(browser, baseURL!, KEYS.poster);
  agent = await newActor(browser, baseURL!, KEYS.agent);
});

test.afterAll(async () => {
  await poster?.context.close();
  await agent?.context.close();
});

test("the poster signs in and posts a job, with validation messages per field", async () => {
  const { page } = poster;
  await page.goto("/");
  await walletReady(page);
  await signInWithUi(page);

  await page.getByRole("link", { name: "Post a job" }).first().click();
  await expect(page.getByRole("heading", { name: "Post a job" })).toBeVisible();
  await page.getByRole("button", { name: "Post job" }).click();
  await expect(page.getByText("Title must not be empty")).toBeVisible();
  await expect(page.getByText("Description must not be empty")).toBeVisible();
  await expect(page.getByText("Enter a budget in USDC")).toBeVisible();
  await expect(page.getByText("Choose a category")).toBeVisible();
  await expect(page.getByLabel("Title")).toBeFocused();

  await page.getByLabel("Title").fill(title);
  await page
    .getByLabel("Description")
    .fill("Find every EU startup working on battery chemistry and group them by segment.");
  await page.getByLabel("Category").selectOption("research");
  await page.getByLabel("Budget (USDC)").fill("0");
  await page.getByLabel("Timeline (days)").fill("7");
  await page.getByRole("button", { name: "Post job" }).click();
  await expect(page.getByText("Budget must be greater than 0")).toBeVisible();
  await page.getByLabel("Budget (USDC)").fill("120");
  await page
    .getByLabel(/Requirements/)
    .fill("A table with name, country, segment\nSources for every row");
  await page.getByRole("button", { name: "Post job" }).click();

  await expect(page).toHaveURL(/\/jobs\/[\w-]+$/);
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(page.getByText("Your job")).toBeVisible();
  jobUrl = new URL(page.url()).pathname;
  jobId = jobUrl.split("/").pop()!;
});

test("an agent operator registers an agent and bids", async () => {
  const { page } = agent;
  await page.goto("/agents/new");
  await walletReady(page);
  await signInWithUi(page);

  agentName = `Atlas ${Date.now().toString(36)}`;
  await page.getByLabel("Agent name").fill(agentName);
  await page.getByLabel(/Description/).fill("Desk research with cited sources.");
  await page.getByRole("checkbox", { name: "Research" }).check();
  await page.getByRole("button", { name: "Register agent" }).click();
  await expect(page).toHaveURL(/\/agents\/[\w-]+$/);
  await expect(page.getByRole("heading", { level: 1, name: agentName })).toBeVisible();
  agentId = new URL(page.url()).pathname.split("/").pop()!;

  await page.goto(jobUrl);
  const form = page.getByRole("form", { name: "Submit a proposal" });
  await form.getByRole("button", { name: "Submit proposal" }).click();
  await expect(form.getByText("Enter your bid in USDC")).toBeVisible();
  await expect(form.getByText("Message must not be empty")).toBeVisible();
  await form.getByLabel("Bid (USDC)").fill("100");
  await form.getByLabel("Delivery time (days)").fill("5");
  await form
    .getByLabel("Message to the poster")
    .fill("Atlas has mapped 30 European markets; five days is plenty.");
  await form.getByRole("button", { name: "Submit proposal" }).click();
  await expect(page.getByRole("article", { name: `Proposal from ${agentName}` })).toBeVisible();
  await expect(page.getByText("Your agents have already bid on this job.")).toBeVisible();
});

test("a second agent bids; the poster rejects it", async () => {
  const rival = new ApiClient(agent.api.baseUrl, privateKeyToAccount(KEYS.agent2));
  await rival.signIn();
  const rivalAgent = await registerAgent(rival, `Rival ${Date.now().toString(36)}`);
  await propose(rival, jobId, rivalAgent.id, 90);

  const { page } = poster;
  await page.goto(jobUrl);
  await expect(page.getByTestId("proposal")).toHaveCount(2);
  const rivalCard = page.getByRole("article", { name: `Proposal from ${rivalAgent.name}` });
  await rivalCard.getByRole("button", { name: "Reject" }).click();
  await rivalCard.getByRole("button", { name: "Yes, reject" }).click();
  await expect(page.getByTestId("active-proposal-count")).toHaveText("1 active proposal");
  await expect(page.getByText("1 rejected proposal")).toBeVisible();
});

test("the poster pays and accepts the other bid through the stepper", async () => {
  const { page } = poster;
  const agentRecord = await apiOk(agent.api.get(`/api/v1/agents/${agentId}`));
  const before = {
    poster: await tokenBalance(poster.wallet.address),
    agent: await tokenBalance(agentRecord.walletAddress),
  };

  const card = page.getByRole("article", { name: `Proposal from ${agentName}` });
  await card.getByRole("button", { name: "Pay & accept" }).click();
  const dialog = page.getByRole("dialog", { name: "Pay & accept" });
  await expect(dialog).toBeVisible();
  // What the 402 challenge asks for, shown before anything is signed.
  await expect(dialog.getByTestId("payment-amount")).toHaveText("100.00 USDC");
  await expect(dialog.getByTestId("payment-payee")).toHaveText(agentRecord.walletAddress);
  expect(poster.wallet.calls).not.toContain("eth_signTypedData_v4");

  await dialog.getByRole("button", { name: "Sign & pay 100.00 USDC" }).click();
  await expect(dialog.getByTestId("payment-done")).toBeVisible({ timeout: 60_000 });
  expect(poster.wallet.calls).toContain("eth_signTypedData_v4");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toBeHidden();

  await expect(page.getByTestId("status-badge").first()).toHaveText("In progress");
  await expect(page.getByTestId("payment-tx")).toHaveText(/^0x[0-9a-f]{64}$/);
  await expect(card.getByTestId("proposal-status")).toHaveText("Accepted");
  expect(await tokenBalance(agentRecord.walletAddress)).toBe(before.agent + 100_000_000n);
  expect(await tokenBalance(poster.wallet.address)).toBe(before.poster - 100_000_000n);
  // While in progress the poster may review; paying or rejecting is gone.
  await expect(page.getByRole("button", { name: "Pay & accept" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Reject" })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "Review the agent" })).toBeVisible();
  await expectAccessible(page, "job in progress (poster)");
  await screenshots(page, "job-in-progress-poster");
});

test("the agent delivers 10 MiB of attachments", async () => {
  const { page } = agent;
  await page.goto(jobUrl);
  const form = page.getByRole("form", { name: "Deliver the work" });
  // The form's own chunk hydrates after the page: files set before that would go unseen.
  await expect(form.getByLabel(/Attach files/)).toBeEnabled();
  await form.getByLabel(/Attach files/).setInputFiles([
    { name: "findings.md", mimeType: "text/markdown", buffer: Buffer.from(deliveredText) },
    { name: "dataset.bin", mimeType: "application/octet-stream", buffer: dataset },
    { name: "appendix.bin", mimeType: "application/octet-stream", buffer: appendix },
  ]);
  await expect(form.getByRole("list", { name: "Files to deliver" })).toContainText("findings.md");
  await expect(form.getByRole("list", { name: "Files to deliver" })).toContainText("3 files");
  await expectAccessible(page, "deliver form (agent)");
  await screenshots(page, "job-deliver-agent");
  await form.getByRole("button", { name: "Mark as delivered" }).click();
  // 13.4 MiB encoded, uploaded and stored: allow for a busy machine.
  await expect(page.getByTestId("status-badge").first()).toHaveText("Delivered", {
    timeout: 60_000,
  });
  await expect(page.getByRole("form", { name: "Deliver the work" })).toHaveCount(0);
  await expect(page.getByText("Waiting for the poster to confirm the delivery.")).toBeVisible();
});

test("the poster downloads the delivery and completes the job with a review", async () => {
  const { page } = poster;
  await page.goto(jobUrl);
  const downloadPromise = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download findings.md" }).click();
  const download = await downloadPromise;
  expect(download.suggestedFilename()).toBe("findings.md");
  const file = await download.path();
  expect(fs.readFileSync(file, "utf8")).toBe(deliveredText);
  const bigDownload = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download dataset.bin" }).click();
  expect(fs.readFileSync(await (await bigDownload).path()).equals(dataset)).toBe(true);

  const form = page.getByRole("form", { name: "Complete the job" });
  await expectAccessible(page, "delivered job (poster)");
  await rate(form, 5);
  await form.getByLabel(/Comment/).fill("Thorough and on time.");
  await screenshots(page, "job-complete-poster");
  await form.getByRole("button", { name: "Confirm delivery & complete" }).click();
  await expect(page.getByTestId("status-badge").first()).toHaveText("Completed");
  await expect(page.getByText("Thorough and on time.")).toBeVisible();
  await expect(page.getByTestId("action-panel")).toHaveCount(0);
});

test("the agent's profile shows the review; the poster's jobs show Verified", async () => {
  const { page } = agent;
  await page.goto(`/agents/${agentId}`);
  await expect(page.getByTestId("review")).toContainText("Thorough and on time.");
  await expect(page.getByTestId("completed-jobs")).toHaveText("1");
  await expect(page.getByText("Rated 5.0 out of 5 from 1 review").first()).toBeAttached();

  await page.goto("/?status=completed");
  const card = page.getByTestId("job-card").filter({ hasText: title });
  await expect(card.getByTestId("verified-badge")).toBeVisible();
  await page.goto(jobUrl);
  await expect(page.getByTestId("verified-badge")).toBeVisible();
});
