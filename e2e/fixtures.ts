import AxeBuilder from "@axe-core/playwright";
import {
  type Browser,
  type BrowserContext,
  expect,
  type Locator,
  type Page,
  test as base,
} from "@playwright/test";
import fs from "node:fs";
import path from "node:path";
import { type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { GANACHE_PRIVATE_KEYS, LOCAL_CHAIN_ID } from "@/dev/local-chain";
import { ApiClient } from "@/tests/helpers/api";
import { payingFetch, tokenReader } from "@/tests/helpers/x402";
import { E2E_ADMIN_INDEX, e2eState } from "./state";
import { installWallet, type TestWallet, WALLET_NAME } from "./wallet";

/** Funded local-chain accounts (10,000 test USDC each at deployment). */
export const KEYS = {
  poster: GANACHE_PRIVATE_KEYS[2],
  agent: GANACHE_PRIVATE_KEYS[3],
  agent2: GANACHE_PRIVATE_KEYS[4],
  other: GANACHE_PRIVATE_KEYS[5],
  poster2: GANACHE_PRIVATE_KEYS[6],
  /** A platform admin (ADMIN_ADDRESSES, e2e/serve.ts): resolves disputes. */
  admin: GANACHE_PRIVATE_KEYS[E2E_ADMIN_INDEX],
} as const;

export const freshKey = (): Hex => generatePrivateKey();

export interface Actor {
  context: BrowserContext;
  page: Page;
  wallet: TestWallet;
  api: ApiClient;
}

/**
 * Content-Security-Policy violations reported by any watched page of this worker since the
 * current test began: the `cspClean` fixture fails a test that left any. The site's CSP
 * (server/security-headers.ts) must let every page, the wallet and paying work unchanged.
 */
const cspViolations: string[] = [];

/** Reports every CSP violation of the context's pages (a binding and an init script, both outside the page's CSP). */
export async function watchCsp(context: BrowserContext): Promise<void> {
  await context.exposeBinding("__reportCspViolation", (_source, report: string) => {
    cspViolations.push(report);
  });
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __reportCspViolation(report: string): void })
        .__reportCspViolation;
      report(
        `${location.pathname}: ${event.violatedDirective} blocked ${event.blockedURI || "inline"} ` +
          `(${event.sourceFile}:${event.lineNumber})`,
      );
    });
  });
}

/** A context of this suite: CSP violations watched. */
export async function newContext(browser: Browser, baseURL?: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL });
  await watchCsp(context);
  return context;
}

/** A browser context with its own injected wallet, and an API client for the same key. */
export async function newActor(browser: Browser, baseURL: string, privateKey: Hex): Promise<Actor> {
  const context = await newContext(browser, baseURL);
  const wallet = await installWallet(context, privateKey, {
    chainId: LOCAL_CHAIN_ID,
    rpcUrl: e2eState().rpcUrl,
  });
  const page = await context.newPage();
  return { context, page, wallet, api: new ApiClient(baseURL, privateKeyToAccount(privateKey)) };
}

/** Signs in through the UI: RainbowKit's modal, our wallet, then the SIWE "Sign message". */
export async function signInWithUi(page: Page) {
  const header = page.getByRole("banner");
  await header.getByRole("button", { name: /connect wallet|sign in/i }).click();
  const modal = page.getByRole("dialog");
  const walletChoice = modal.getByRole("button", { name: WALLET_NAME });
  const signMessage = modal.getByRole("button", { name: "Sign message" });
  // A wallet that is already connected goes straight to the SIWE step.
  await expect(walletChoice.or(signMessage)).toBeVisible();
  if (await walletChoice.isVisible()) await walletChoice.click();
  await signMessage.click();
  await expect(header.getByTestId("account-button")).toBeVisible();
  await expect(page.getByRole("dialog")).toHaveCount(0);
}

/** Signs in without the UI (SIWE through the API) and hands the cookie to the browser. */
export async function signInWithApi(actor: Actor) {
  await actor.api.signIn();
  const value = actor.api.cookie!.split("=").slice(1).join("=");
  await actor.context.addCookies([
    { name: "marketplace_session", value, url: actor.api.baseUrl, httpOnly: true, sameSite: "Lax" },
  ]);
}

export async function apiOk<T = any>(
  promise: Promise<{ status: number; body: any }>,
  expected = [200, 201],
): Promise<T> {
  const response = await promise;
  if (!expected.includes(response.status)) {
    throw new Error(`API call failed (${response.status}): ${JSON.stringify(response.body)}`);
  }
  return response.body.data as T;
}

let counter = 0;
export const unique = (label: string) =>
  `${label} ${Date.now().toString(36)}${(counter++).toString(36)}`;

export async function createJob(api: ApiClient, overrides: Record<string, unknown> = {}) {
  return apiOk(
    api.post("/api/v1/jobs", {
      title: unique("Job"),
      description: "Summarise ten papers on solid-state batteries, with citations.",
      category: "research",
      budgetUsdc: 50,
      timelineDays: 5,
      requirements: ["Cite every claim", "Markdown output"],
      ...overrides,
    }),
  );
}

export async function registerAgent(api: ApiClient, name = unique("Agent")) {
  return apiOk(
    api.post("/api/v1/agents", {
      name,
      description: "Research agent.",
      categories: ["research", "writing"],
    }),
  );
}

export async function propose(api: ApiClient, jobId: string, agentId: string, bidUsdc = 40) {
  return apiOk(
    api.post(`/api/v1/jobs/${jobId}/proposals`, {
      agentId,
      bidUsdc,
      etaDays: 3,
      message: "I can do this well.",
    }),
  );
}

/** Pays a bid through x402 from Node (as a programmatic poster would) and accepts it. */
export async function payAndAccept(api: ApiClient, jobId: string, proposalId: string) {
  const pay = payingFetch(api.account as never);
  const response = await pay(`${api.baseUrl}/api/jobs/${jobId}/settle?proposalId=${proposalId}`, {
    method: "POST",
  });
  const body = (await response.json()) as { data?: { txHash: string }; error?: string };
  if (response.status !== 200 || !body.data)
    throw new Error(`settle failed (${response.status}): ${body.error}`);
  return apiOk(api.post(`/api/v1/jobs/${jobId}/accept`, { proposalId, txHash: body.data.txHash }));
}

export const tokenBalance = (address: string) => tokenReader(e2eState().rpcUrl).balanceOf(address);

/**
 * axe on the current page: no serious or critical violations. RainbowKit draws wallet icons as
 * role="img" without a label inside buttons that already name the wallet; that one rule is
 * ignored for nodes inside RainbowKit's own markup (`[data-rk]`) only.
 */
export async function expectAccessible(page: Page, label: string) {
  // A router refresh (after a form's write) replaces the streamed <title>: for a moment the
  // document has none, and axe run in that moment reports it (CI, 2026-11-26). Wait until the
  // page has its title again; a page that never gets one still fails here.
  await expect(page, `the page's <title> (${label})`).toHaveTitle(/\S/);
  const results = await new AxeBuilder({ page }).analyze();
  const summary: string[] = [];
  for (const violation of results.violations) {
    if (violation.impact !== "serious" && violation.impact !== "critical") continue;
    const nodes = [];
    for (const node of violation.nodes) {
      if (violation.id === "role-img-alt" && (await insideRainbowKit(page, node.target.join(" "))))
        continue;
      nodes.push(`    ${node.target.join(" ")}: ${node.failureSummary}`);
    }
    if (nodes.length > 0)
      summary.push(`${violation.id} (${violation.impact}): ${violation.help}\n${nodes.join("\n")}`);
  }
  expect(summary, `axe on ${label}`).toEqual([]);
}

async function insideRainbowKit(page: Page, selector: string): Promise<boolean> {
  return page
    .locator(selector)
    .first()
    .evaluate((element) => element.closest("[data-rk]") !== null)
    .catch(() => false);
}

const SCREENSHOT_DIR = path.join("test-results", "screenshots");

/** Full-page screenshots at phone (390px) and desktop (1280px) width; `dark` adds dark mode. */
export async function screenshots(
  page: Page,
  name: string,
  options: { dark?: boolean; fullPage?: boolean } = {},
) {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize();
  for (const scheme of options.dark ? (["light", "dark"] as const) : (["light"] as const)) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [
      [390, 844],
      [1280, 900],
    ] as const) {
      await page.setViewportSize({ width, height });
      if (options.fullPage ?? true) await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(150);
      await page.screenshot({
        path: path.join(SCREENSHOT_DIR, `${name}${scheme === "dark" ? "-dark" : ""}-${width}.png`),
        fullPage: options.fullPage ?? true,
      });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  if (original) await page.setViewportSize(original);
}

/** Waits until the header's wallet island has loaded (the wallet stack is lazy). */
export async function walletReady(page: Page) {
  await expect(
    page.getByRole("banner").getByRole("button", { name: /connect wallet|sign in|account/i }),
  ).toBeVisible();
}

/**
 * Picks a rating in a review form. The stars are radios drawn as stars (the input itself is
 * visually hidden, hence `force`), disabled until the form hydrated (see useHydrated).
 */
export async function rate(form: Locator, stars: number) {
  const star = form.getByRole("radio", { name: `${stars} star${stars === 1 ? "" : "s"}` });
  await expect(star).toBeEnabled();
  await star.check({ force: true });
  await expect(form.getByText(`${stars} / 5`)).toBeVisible();
}

/**
 * Holds every script of the page back by `ms`, as a loaded machine does: the server's HTML is
 * up and its buttons visible well before React has hydrated them. A press in that window must
 * wait for the button (useHydrated keeps it disabled), never be lost.
 */
export async function slowScripts(page: Page, ms = 1_500) {
  await page.route("**/_next/static/**/*.js", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    await route.continue();
  });
}

/** Every test: its pages' CSP violations watched, and none allowed. */
export const test = base.extend<{ cspClean: void }>({
  context: async ({ context }, provide) => {
    await watchCsp(context);
    await provide(context);
  },
  cspClean: [
    async ({}, provide) => {
      cspViolations.length = 0;
      await provide();
      expect(cspViolations, "Content-Security-Policy violations").toEqual([]);
    },
    { auto: true },
  ],
});
export { expect };
