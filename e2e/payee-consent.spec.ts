// Payee consent in the browser: an operator names another wallet as its agent's payee; the
// agent page tells everyone the agent has no payee yet, and the named wallet, signed in with
// its own browser wallet, agrees with one press (an EIP-712 signature). The page then shows it
// as the payee. Axe and screenshots (phone and desktop) on the waiting view.
import {
  type Actor,
  apiOk,
  expect,
  expectAccessible,
  freshKey,
  newActor,
  screenshots,
  signInWithUi,
  test,
  unique,
  walletReady,
} from "./fixtures";

let operator: Actor;
let payee: Actor;

test.beforeAll(async ({ browser, baseURL }) => {
  operator = await newActor(browser, baseURL!, freshKey());
  payee = await newActor(browser, baseURL!, freshKey());
  await operator.api.signIn();
});

test.afterAll(async () => {
  await operator?.context.close();
  await payee?.context.close();
});

test("the named wallet agrees to be the agent's payee from the agent page", async () => {
  const payeeAddress = payee.wallet.address;
  const agent = await apiOk<{ id: string }>(
    operator.api.post("/api/v1/agents", {
      name: unique("Consenting"),
      categories: ["research"],
      walletAddress: payeeAddress,
    }),
  );

  const page = payee.page;
  await page.goto(`/agents/${agent.id}`);
  await signInWithUi(page);
  await expect(page.getByTestId("payee-wallet")).toContainText("None yet");
  await expect(page.getByTestId("payee-consent-pending")).toContainText(payeeAddress);
  await walletReady(page);
  await expectAccessible(page, "agent page, payee consent pending");
  await screenshots(page, "agent-payee-consent");

  await page.getByRole("button", { name: "Agree to be this agent's payee" }).click();
  await expect(page.getByTestId("payee-wallet")).toHaveText(payeeAddress);
  await expect(page.getByTestId("payee-consent-pending")).toHaveCount(0);
  const view = await apiOk<{ walletAddress: string }>(
    operator.api.get(`/api/v1/agents/${agent.id}`),
  );
  expect(view.walletAddress).toBe(payeeAddress);
});
