// Users' words never widen the page: a job, an agent, a bid, a thread message, a delivered
// file and a review, each made of the longest unbroken word its field accepts (2,000
// characters where the field allows it), on every page that shows them, at phone (390 px) and
// desktop (1280 px) width, for the poster, the agent and a visitor.
import type { Page } from "@playwright/test";
import { mintTestUsdc } from "@/dev/local-chain";
import {
  type Actor,
  apiOk,
  expect,
  freshKey,
  newActor,
  newContext,
  payAndAccept,
  screenshots,
  signInWithApi,
  test,
} from "./fixtures";
import { e2eState } from "./state";

test.describe.configure({ mode: "serial" });

/** One unbroken word of `length` characters (letters and digits, like a pasted hash or URL). */
const word = (length: number, seed: string) =>
  Array.from({ length }, (_, i) => (seed + "abcdef0123456789")[i % (seed.length + 16)]).join("");

let poster: Actor;
let agent: Actor;
let visitor: Page;
let jobId: string;
let agentId: string;

test.beforeAll(async ({ browser, baseURL }) => {
  poster = await newActor(browser, baseURL!, freshKey());
  agent = await newActor(browser, baseURL!, freshKey());
  await Promise.all([signInWithApi(poster), signInWithApi(agent)]);
  visitor = await (await newContext(browser, baseURL)).newPage();

  const job = await apiOk<{ id: string }>(
    poster.api.post("/api/v1/jobs", {
      title: word(200, "title"),
      description: word(2_000, "description"),
      requirements: [word(500, "requirement"), word(500, "second")],
      handle: word(32, "handle"),
      category: "data",
      budgetUsdc: 30,
      timelineDays: 2,
    }),
  );
  jobId = job.id;
  const registered = await apiOk<{ id: string }>(
    agent.api.post("/api/v1/agents", {
      name: word(100, "agentname"),
      description: word(2_000, "agentdescription"),
      categories: ["data"],
    }),
  );
  agentId = registered.id;
  const proposal = await apiOk<{ id: string }>(
    agent.api.post(`/api/v1/jobs/${jobId}/proposals`, {
      agentId,
      bidUsdc: 20,
      etaDays: 2,
      message: word(2_000, "bidmessage"),
    }),
  );
  await apiOk(
    agent.api.post(`/api/v1/jobs/${jobId}/proposals/${proposal.id}/messages`, {
      body: word(2_000, "threadmessage"),
    }),
  );
  await mintTestUsdc(e2eState().rpcUrl, poster.wallet.address, 20_000_000n);
  await payAndAccept(poster.api, jobId, proposal.id);
  const bytes = Buffer.from("a,b\n1,2\n");
  await apiOk(
    agent.api.post(`/api/v1/jobs/${jobId}/deliver`, {
      attachments: [
        {
          name: `${word(251, "filename")}.csv`,
          size: bytes.length,
          type: "text/csv",
          dataUrl: `data:text/csv;base64,${bytes.toString("base64")}`,
        },
      ],
    }),
  );
  await apiOk(
    poster.api.post(`/api/v1/jobs/${jobId}/complete`, {
      rating: 4,
      comment: word(2_000, "reviewcomment"),
    }),
  );
});

test.afterAll(async () => {
  await poster?.context.close();
  await agent?.context.close();
  await visitor?.context().close();
});

/** The page at each width: nothing reaches past the viewport's right edge. */
async function expectNoSidewaysScroll(page: Page, path: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(path);
    await expect(page.locator("main")).toBeVisible();
    const widths = await page.evaluate(() => {
      const viewport = window.innerWidth;
      // The innermost elements reaching past the right edge: what to fix when this fails.
      const past = [...document.querySelectorAll("body *")]
        .filter((element) => element.getBoundingClientRect().right > viewport + 1)
        .filter(
          (element) =>
            ![...element.children].some(
              (child) => child.getBoundingClientRect().right > viewport + 1,
            ),
        )
        .slice(0, 5)
        .map((element) => `${element.tagName.toLowerCase()}.${element.className}`.slice(0, 160));
      return { page: document.documentElement.scrollWidth, viewport, past };
    });
    expect(widths.page, `${path} at ${width}px: ${widths.past.join(" | ")}`).toBeLessThanOrEqual(
      widths.viewport,
    );
  }
}

test("the poster's pages hold every long word within the viewport", async () => {
  for (const path of [
    "/",
    `/jobs/${jobId}`,
    "/me",
    "/notifications",
    `/agents/${agentId}`,
    "/agents",
  ]) {
    await expectNoSidewaysScroll(poster.page, path);
  }
  await poster.page.goto(`/jobs/${jobId}`);
  await screenshots(poster.page, "long-words-job");
});

test("the agent's and a visitor's pages too", async () => {
  for (const path of [`/jobs/${jobId}`, "/me", "/notifications"]) {
    await expectNoSidewaysScroll(agent.page, path);
  }
  for (const path of ["/", `/jobs/${jobId}`, `/agents/${agentId}`, "/agents"]) {
    await expectNoSidewaysScroll(visitor, path);
  }
});
