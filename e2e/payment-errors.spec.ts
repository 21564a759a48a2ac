// Payments that do not go through: readable errors, a retry, and nothing changed.
import {
  apiOk,
  createJob,
  expect,
  freshKey,
  KEYS,
  newActor,
  propose,
  registerAgent,
  screenshots,
  signInWithUi,
  slowScripts,
  test,
  tokenBalance,
  walletReady,
} from "./fixtures";
import { payingFetch } from "@/tests/helpers/x402";

test("a poster without funds gets a readable refusal, nothing changes; test USDC from the faucet fixes it", async ({
  browser,
  baseURL,
}) => {
  const poster = await newActor(browser, baseURL!, freshKey());
  const agent = await newActor(browser, baseURL!, KEYS.agent);
  await agent.api.signIn();
  await poster.page.goto("/");
  await walletReady(poster.page);
  await signInWithUi(poster.page);
  await poster.api.signIn();
  const job = await createJob(poster.api, { title: "Unfunded poster's job" });
  const agentRecord = await registerAgent(agent.api);
  const proposal = await propose(agent.api, job.id, agentRecord.id, 25);
  const agentBefore = await tokenBalance(agentRecord.walletAddress);

  const { page } = poster;
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole("button", { name: "Pay & accept" }).click();
  const dialog = page.getByRole("dialog", { name: "Pay & accept" });
  await expect(dialog.getByTestId("payment-amount")).toHaveText("25.00 USDC");
  await expect(dialog.getByText(/balance looks lower than the amount/)).toBeVisible();
  await dialog.getByRole("button", { name: "Sign & pay 25.00 USDC" }).click();

  const error = dialog.getByTestId("payment-error");
  await expect(error).toContainText("insufficient balance");
  await expect(error).toContainText("No money moved");
  await expect(error).toContainText("Get test USDC");
  await expect(dialog.getByTestId("pay-step-2")).toHaveAttribute("data-state", "failed");
  await expect(dialog.getByTestId("pay-step-1")).toHaveAttribute("data-state", "done");
  await expect(dialog.getByRole("button", { name: "Retry" })).toBeVisible();
  await screenshots(page, "payment-refused", { fullPage: false });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();

  // Nothing changed: the job is open, the proposal pending, no money moved, paying is offered again.
  expect((await apiOk(poster.api.get(`/api/v1/jobs/${job.id}`))).status).toBe("open");
  const proposals = await apiOk(poster.api.get(`/api/v1/jobs/${job.id}/proposals`));
  expect(proposals.map((item: { id: string; status: string }) => [item.id, item.status])).toEqual([
    [proposal.id, "pending"],
  ]);
  expect(await tokenBalance(agentRecord.walletAddress)).toBe(agentBefore);
  await page.reload();
  await expect(page.getByRole("button", { name: "Pay & accept" })).toBeVisible();
  await expect(page.getByTestId("status-badge").first()).toHaveText("Open");

  // The development faucet funds the wallet; the same payment then goes through.
  await expect(page.getByTestId("test-usdc-balance")).toHaveText("0.00 test USDC");
  await page.getByRole("button", { name: "Get test USDC" }).click();
  await expect(page.getByText("Added 1,000 test USDC.")).toBeVisible();
  await expect(page.getByTestId("test-usdc-balance")).toHaveText("1,000.00 test USDC");
  await page.getByRole("button", { name: "Pay & accept" }).click();
  await dialog.getByRole("button", { name: "Sign & pay 25.00 USDC" }).click();
  await expect(dialog.getByTestId("payment-done")).toBeVisible({ timeout: 60_000 });
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("status-badge").first()).toHaveText("In progress");
  await expect(page.getByTestId("test-usdc-balance")).toHaveText("975.00 test USDC");
  expect(await tokenBalance(agentRecord.walletAddress)).toBe(agentBefore + 25_000_000n);
  await poster.context.close();
  await agent.context.close();
});

test("declining the signature in the wallet is readable, and Retry pays", async ({
  browser,
  baseURL,
}) => {
  const poster = await newActor(browser, baseURL!, KEYS.poster);
  const agent = await newActor(browser, baseURL!, KEYS.agent2);
  await agent.api.signIn();
  await poster.page.goto("/");
  await walletReady(poster.page);
  await signInWithUi(poster.page);
  await poster.api.signIn();
  const job = await createJob(poster.api, { title: "Declined then paid" });
  const agentRecord = await registerAgent(agent.api);
  await propose(agent.api, job.id, agentRecord.id, 12.5);

  const { page } = poster;
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole("button", { name: "Pay & accept" }).click();
  const dialog = page.getByRole("dialog", { name: "Pay & accept" });
  poster.wallet.rejectNextSignature();
  await dialog.getByRole("button", { name: "Sign & pay 12.50 USDC" }).click();
  await expect(dialog.getByTestId("payment-error")).toHaveText(
    "You declined the signature in your wallet. Nothing was paid.",
  );
  await expect(dialog.getByTestId("pay-step-1")).toHaveAttribute("data-state", "failed");
  await dialog.getByRole("button", { name: "Retry" }).click();
  await expect(dialog.getByTestId("payment-done")).toBeVisible({ timeout: 60_000 });
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("status-badge").first()).toHaveText("In progress");
  await poster.context.close();
  await agent.context.close();
});

test("a job paid but not accepted offers to finish the acceptance", async ({
  browser,
  baseURL,
}) => {
  const poster = await newActor(browser, baseURL!, KEYS.poster);
  const agent = await newActor(browser, baseURL!, KEYS.agent);
  await agent.api.signIn();
  await poster.api.signIn();
  const job = await createJob(poster.api, { title: "Paid, then the tab closed" });
  const agentRecord = await registerAgent(agent.api);
  const proposal = await propose(agent.api, job.id, agentRecord.id, 7);
  // Settle without the accept call, as if the browser closed between the two.
  const pay = payingFetch(poster.api.account as never);
  const settled = await pay(`${baseURL}/api/jobs/${job.id}/settle?proposalId=${proposal.id}`, {
    method: "POST",
  });
  expect(settled.status).toBe(200);

  const cookie = poster.api.cookie!.split("=").slice(1).join("=");
  await poster.context.addCookies([{ name: "marketplace_session", value: cookie, url: baseURL! }]);
  const { page } = poster;
  // The button is pressed as soon as it shows, before its code has run (a CI run lost it).
  await slowScripts(page);
  await page.goto(`/jobs/${job.id}`, { waitUntil: "commit" });
  await expect(
    page.getByRole("heading", { name: "Payment settled — finish the acceptance" }),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Pay & accept" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Reject" })).toHaveCount(0);
  await page.getByRole("button", { name: "Finish acceptance" }).click();
  await expect(page.getByTestId("status-badge").first()).toHaveText("In progress");
  await expect(page.getByTestId("proposal-status")).toHaveText("Accepted");
  await poster.context.close();
  await agent.context.close();
});
