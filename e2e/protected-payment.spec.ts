// Protected payments in the browser (issue 25): the poster chooses "Protected" in the pay
// dialog, sees the escrow and its deadlines before signing, and pays into the Commerce
// Payments escrow (the local chain's stand-in); the job page says where the money is while
// the agent works, delivers and the poster completes (released to the agent). Then a dispute:
// opened from the page, shown to both parties, refunded by an admin; the job ends cancelled,
// the money back with the poster, and /me lists it under Cancelled.
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import { LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS } from "@/dev/escrow";
import { mintTestUsdc } from "@/dev/local-chain";
import type { ApiClient } from "@/tests/helpers/api";
import { fetchChallenge } from "@/tests/helpers/x402";
import {
  type Actor,
  apiOk,
  createJob,
  expect,
  expectAccessible,
  freshKey,
  KEYS,
  newActor,
  propose,
  registerAgent,
  screenshots,
  signInWithApi,
  signInWithUi,
  test,
  tokenBalance,
  walletReady,
} from "./fixtures";
import { e2eState } from "./state";

test.describe.configure({ mode: "serial" });

const USDC = 1_000_000n;
let poster: Actor;
let agent: Actor;
let admin: Actor;
let agentRecord: { id: string; name: string; walletAddress: string };

test.beforeAll(async ({ browser, baseURL }) => {
  poster = await newActor(browser, baseURL!, freshKey());
  agent = await newActor(browser, baseURL!, freshKey());
  admin = await newActor(browser, baseURL!, KEYS.admin);
  await mintTestUsdc(e2eState().rpcUrl, poster.wallet.address, 1_000n * USDC);
  await Promise.all([poster.api.signIn(), signInWithApi(agent), signInWithApi(admin)]);
  agentRecord = await registerAgent(agent.api);
});

test.afterAll(async () => {
  await poster?.context.close();
  await agent?.context.close();
  await admin?.context.close();
});

/** A job of the poster's with the agent's bid on it. */
async function biddedJob(title: string, bidUsdc: number) {
  const job = await createJob(poster.api, { title, budgetUsdc: 100 });
  const proposal = await propose(agent.api, job.id, agentRecord.id, bidUsdc);
  return { jobId: job.id as string, proposalId: proposal.id as string };
}

/** Pays protected from Node with x402's auth-capture client (as a program would), then accepts. */
async function payProtectedAndAccept(api: ApiClient, jobId: string, proposalId: string) {
  const url = `${api.baseUrl}/api/jobs/${jobId}/settle?proposalId=${proposalId}&mode=escrow`;
  const challenge = await fetchChallenge(url);
  const requirements = challenge.paymentRequired.accepts[0]!;
  const { payload } = await new AuthCaptureEvmScheme(api.account as never).createPaymentPayload(
    2,
    requirements,
  );
  const paymentPayload: PaymentPayload = {
    x402Version: 2,
    resource: challenge.paymentRequired.resource,
    accepted: requirements,
    payload,
  };
  const response = await fetch(url, {
    method: "POST",
    headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(paymentPayload) },
  });
  const body = (await response.json()) as { data?: { txHash: string }; error?: string };
  if (response.status !== 200 || !body.data) {
    throw new Error(`settle failed (${response.status}): ${body.error}`);
  }
  return apiOk(api.post(`/api/v1/jobs/${jobId}/accept`, { proposalId, txHash: body.data.txHash }));
}

/** Reloads until the escrow card shows `state`: the operator's transaction lands after the write. */
async function expectEscrowState(actor: Actor, state: string) {
  await expect(async () => {
    await actor.page.reload();
    await expect(actor.page.getByTestId("escrow-status")).toHaveAttribute("data-state", state, {
      timeout: 2_000,
    });
  }).toPass({ timeout: 60_000 });
}

test.describe("paid protected", () => {
  let jobId: string;
  const bid = 40;

  test("the poster chooses Protected, sees the escrow's terms, pays and accepts: the money is held", async () => {
    ({ jobId } = await biddedJob(`Protected research ${Date.now().toString(36)}`, bid));
    const { page } = poster;
    await page.goto("/");
    await walletReady(page);
    await signInWithUi(page);
    await page.goto(`/jobs/${jobId}`);
    const before = {
      poster: await tokenBalance(poster.wallet.address),
      agent: await tokenBalance(agentRecord.walletAddress),
    };

    await page.getByRole("button", { name: "Pay & accept" }).click();
    const dialog = page.getByRole("dialog", { name: "Pay & accept" });
    // Pay-now stays the default.
    const payNow = dialog.getByRole("radio", { name: /Pay now — the agent is paid at once/ });
    const protectedChoice = dialog.getByRole("radio", {
      name: /Protected — held in escrow until you confirm the delivery/,
    });
    await expect(payNow).toBeChecked();
    await expect(dialog.getByTestId("payment-payee")).toHaveText(agentRecord.walletAddress);
    await expect(dialog.getByTestId("payment-escrow")).toHaveCount(0);

    await protectedChoice.check();
    await expect(dialog.getByTestId("payment-escrow")).toHaveText(
      LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
    );
    await expect(dialog.getByTestId("payment-amount")).toHaveText("40.00 USDC");
    await expect(dialog.getByTestId("payment-payee")).toHaveText(agentRecord.walletAddress);
    await expect(dialog.getByTestId("payment-deliver-by")).toHaveText(/UTC$/);
    await expect(dialog.getByTestId("payment-held-until")).toHaveText(/UTC$/);
    const protection = dialog.getByTestId("payment-protection");
    await expect(protection).toContainText("into the Commerce Payments escrow contract");
    await expect(protection).toContainText("you can cancel the job and get the money back");
    expect(poster.wallet.calls).not.toContain("eth_signTypedData_v4");
    await expectAccessible(page, "pay dialog, protected");
    await screenshots(page, "pay-protected", { fullPage: false });

    await dialog.getByRole("button", { name: "Sign & pay 40.00 USDC" }).click();
    await expect(dialog.getByTestId("payment-done")).toHaveText("Paid into escrow and accepted", {
      timeout: 60_000,
    });
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toBeHidden();

    // The money left the poster's wallet and did not reach the agent: it is in escrow.
    expect(await tokenBalance(poster.wallet.address)).toBe(before.poster - 40n * USDC);
    expect(await tokenBalance(agentRecord.walletAddress)).toBe(before.agent);
    await expect(page.getByTestId("status-badge").first()).toHaveText("In progress");
    const escrow = page.getByTestId("escrow-status");
    await expect(escrow).toHaveAttribute("data-state", "held");
    await expect(escrow.getByTestId("escrow-title")).toHaveText("Held in escrow: 40.00 USDC");
    await expect(escrow.getByTestId("escrow-held")).toHaveText("40.00 USDC");
    await expect(escrow.getByTestId("escrow-contract")).toHaveText(
      LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
    );
    // Before the delivery deadline the poster is told when cancelling becomes possible.
    await expect(escrow.getByTestId("cancel-from")).toContainText("you can cancel here");
    await expect(escrow.getByRole("button", { name: "Cancel and get the money back" })).toHaveCount(
      0,
    );
    await expect(escrow.getByText("Open a dispute")).toBeVisible();
    await expect(page.getByText("Payment (protected)")).toBeVisible();
    await expectAccessible(page, "protected payment held (poster)");
    await screenshots(page, "job-protected-held", { dark: true });
  });

  test("the agent delivers; the page says when the money is released", async () => {
    const { page } = agent;
    await page.goto(`/jobs/${jobId}`);
    await expect(page.getByTestId("escrow-status")).toHaveAttribute("data-state", "held");
    const form = page.getByRole("form", { name: "Deliver the work" });
    await expect(form.getByLabel(/Attach files/)).toBeEnabled();
    await form
      .getByLabel(/Attach files/)
      .setInputFiles([
        { name: "report.md", mimeType: "text/markdown", buffer: Buffer.from("# Report\n") },
      ]);
    await form.getByRole("button", { name: "Mark as delivered" }).click();
    await expect(page.getByTestId("status-badge").first()).toHaveText("Delivered");
    await expect(page.getByTestId("escrow-title")).toHaveText(
      "Held in escrow until the poster completes the job",
    );
    await expect(page.getByTestId("escrow-story")).toContainText("or automatically on");
  });

  test("the poster completes: the escrow releases the money to the agent", async () => {
    const { page } = poster;
    const agentBefore = await tokenBalance(agentRecord.walletAddress);
    await page.goto(`/jobs/${jobId}`);
    await expect(page.getByTestId("action-panel")).toContainText(
      "releases the 40.00 USDC held in escrow to the agent",
    );
    const form = page.getByRole("form", { name: "Complete the job" });
    await form.getByRole("button", { name: "Confirm delivery & complete" }).click();
    await expect(page.getByTestId("status-badge").first()).toHaveText("Completed");
    await expectEscrowState(poster, "released");
    await expect(page.getByTestId("escrow-title")).toHaveText(`Released to ${agentRecord.name}`);
    await expect(page.getByTestId("escrow-released")).toHaveText("40.00 USDC");
    await expect(page.getByTestId("escrow-held")).toHaveText("0.00 USDC");
    expect(await tokenBalance(agentRecord.walletAddress)).toBe(agentBefore + 40n * USDC);
    await expectAccessible(page, "protected payment released (poster)");
  });
});

test.describe("a dispute", () => {
  let jobId: string;
  let posterBefore: bigint;
  const reason = "Half of the sources do not exist.";

  test("the poster opens a dispute from the page; both parties see the payment frozen", async () => {
    const job = await biddedJob(`Disputed research ${Date.now().toString(36)}`, 25);
    jobId = job.jobId;
    posterBefore = await tokenBalance(poster.wallet.address);
    await payProtectedAndAccept(poster.api, job.jobId, job.proposalId);

    const { page } = poster;
    await page.goto(`/jobs/${jobId}`);
    const escrow = page.getByTestId("escrow-status");
    await expect(escrow).toHaveAttribute("data-state", "held");
    await escrow.getByText("Open a dispute").click();
    const form = page.getByRole("form", { name: "Open a dispute" });
    await form.getByRole("button", { name: "Open the dispute" }).click();
    await expect(form.getByText("Reason must not be empty")).toBeVisible();
    await form.getByLabel("What went wrong?").fill(reason);
    await form.getByRole("button", { name: "Open the dispute" }).click();

    await expect(escrow.getByTestId("escrow-title")).toHaveText(
      "Dispute open — the payment is frozen",
    );
    await expect(escrow.getByTestId("escrow-dispute")).toContainText("by you");
    await expect(escrow.getByTestId("escrow-dispute")).toContainText(reason);
    await expect(page.getByRole("form", { name: "Open a dispute" })).toHaveCount(0);
    await expectAccessible(page, "dispute open (poster)");
    await screenshots(page, "job-protected-dispute");

    await agent.page.goto(`/jobs/${jobId}`);
    await expect(agent.page.getByTestId("escrow-dispute")).toContainText("by the poster");
    await expect(agent.page.getByTestId("escrow-dispute")).toContainText(reason);
    // Only an admin decides.
    await expect(agent.page.getByRole("form", { name: "Resolve the dispute" })).toHaveCount(0);
  });

  test("an admin refunds the poster: the job is cancelled, the money back, /me lists it", async () => {
    const { page } = admin;
    await page.goto(`/jobs/${jobId}`);
    const form = page.getByRole("form", { name: "Resolve the dispute" });
    await form.getByRole("radio", { name: "Refund the poster" }).check();
    await form.getByLabel("Reason").fill("The delivery was not started; the poster gets it back.");
    await form.getByRole("button", { name: "Resolve the dispute" }).click();
    await expect(page.getByTestId("status-badge").first()).toHaveText("Cancelled");
    await expectEscrowState(admin, "refunded");
    await expect(page.getByTestId("escrow-title")).toHaveText("Returned to the poster");
    await expect(page.getByTestId("escrow-dispute")).toContainText("refunded to the poster");

    expect(await tokenBalance(poster.wallet.address)).toBe(posterBefore);
    await poster.page.goto(`/jobs/${jobId}`);
    await expect(poster.page.getByTestId("escrow-title")).toHaveText("Returned to you");
    await expect(poster.page.getByTestId("escrow-refunded")).toHaveText("25.00 USDC");
    await expectAccessible(poster.page, "cancelled job (poster)");

    await poster.page.goto("/me");
    await expect(poster.page.getByTestId("section-cancelled")).toContainText("Disputed research");
    await agent.page.goto("/me");
    await expect(agent.page.getByTestId("section-assigned_cancelled")).toContainText(
      "Disputed research",
    );
    const mine = await apiOk(agent.api.get("/api/v1/me/jobs"));
    expect(mine.find((item: { job: { id: string } }) => item.job.id === jobId)?.group).toBe(
      "assigned_cancelled",
    );
  });
});
