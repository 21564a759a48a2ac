// Each viewer sees only the actions the job's state and their role allow (lib/kernel/
// lifecycle.ts decides; the page must not offer anything the API would refuse).
import type { Page } from "@playwright/test";
import {
  type Actor,
  createJob,
  expect,
  freshKey,
  KEYS,
  newActor,
  newContext,
  payAndAccept,
  propose,
  registerAgent,
  signInWithApi,
  test,
  apiOk,
} from "./fixtures";

test.describe.configure({ mode: "serial" });

let poster: Actor;
let agent: Actor;
let other: Actor;
let anonymous: Page;
let job: { id: string };
let proposal: { id: string };
let agentRecord: { id: string; name: string };

const ACTIONS = {
  reject: (page: Page) => page.getByRole("button", { name: "Reject" }),
  pay: (page: Page) => page.getByRole("button", { name: "Pay & accept" }),
  bid: (page: Page) => page.getByRole("form", { name: "Submit a proposal" }),
  deliver: (page: Page) => page.getByRole("form", { name: "Deliver the work" }),
  review: (page: Page) => page.getByRole("form", { name: "Review the agent" }),
  complete: (page: Page) => page.getByRole("form", { name: "Complete the job" }),
};
type Action = keyof typeof ACTIONS;

async function expectOnly(page: Page, allowed: Action[]) {
  await page.goto(`/jobs/${job.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  for (const [name, locate] of Object.entries(ACTIONS) as [
    Action,
    (page: Page) => ReturnType<Page["getByRole"]>,
  ][]) {
    if (allowed.includes(name))
      await expect(locate(page).first(), `${name} should be offered`).toBeVisible();
    else await expect(locate(page), `${name} should be hidden`).toHaveCount(0);
  }
}

test.beforeAll(async ({ browser, baseURL }) => {
  poster = await newActor(browser, baseURL!, KEYS.poster2);
  // Fresh wallets: what they operate is only what this file creates.
  agent = await newActor(browser, baseURL!, freshKey());
  other = await newActor(browser, baseURL!, freshKey());
  for (const actor of [poster, agent, other]) await signInWithApi(actor);
  anonymous = await (await newContext(browser, baseURL)).newPage();

  job = await createJob(poster.api, { title: "State check: logo refresh", category: "design" });
  agentRecord = await registerAgent(agent.api, `Pixelsmith ${Date.now().toString(36)}`);
  proposal = await propose(agent.api, job.id, agentRecord.id, 30);
});

test.afterAll(async () => {
  for (const actor of [poster, agent, other]) await actor?.context.close();
  await anonymous?.context().close();
});

test("open: the poster rejects or pays; the bidding agent and others cannot", async () => {
  await expectOnly(poster.page, ["reject", "pay"]);
  await expectOnly(agent.page, []);
  await expect(agent.page.getByText("Your agents have already bid on this job.")).toBeVisible();
  await expectOnly(other.page, []);
  await expect(other.page.getByRole("link", { name: "register an agent" })).toBeVisible();
  await expectOnly(anonymous, []);
  await expect(
    anonymous.getByText("Sign in with your wallet to bid on this job or manage it."),
  ).toBeVisible();
});

test("in progress: the poster may review, the agent delivers", async () => {
  await payAndAccept(poster.api, job.id, proposal.id);
  await expectOnly(poster.page, ["review"]);
  await expectOnly(agent.page, ["deliver"]);
  await expectOnly(other.page, []);
  await expectOnly(anonymous, []);
});

test("a review posted while in progress hides the review form", async () => {
  await apiOk(
    poster.api.post("/api/v1/reviews", {
      agentId: agentRecord.id,
      jobId: job.id,
      rating: 4,
      comment: "Good start.",
    }),
  );
  await expectOnly(poster.page, []);
  await expect(poster.page.getByText("Waiting for delivery")).toBeVisible();
});

test("delivered: only the poster completes", async () => {
  await apiOk(agent.api.post(`/api/v1/jobs/${job.id}/deliver`, {}));
  await expectOnly(poster.page, ["complete"]);
  // The poster reviewed already: completing asks for no second rating.
  await expect(
    poster.page.getByText("You already reviewed this agent for this job."),
  ).toBeVisible();
  await expectOnly(agent.page, []);
  await expectOnly(other.page, []);
});

test("completed: nothing left to do for anyone", async () => {
  await apiOk(poster.api.post(`/api/v1/jobs/${job.id}/complete`, {}));
  for (const page of [poster.page, agent.page, other.page, anonymous]) {
    await expectOnly(page, []);
    await expect(page.getByTestId("action-panel")).toHaveCount(0);
  }
});
