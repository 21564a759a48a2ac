// The browser's one way to call the API (components/forms/api.ts: the typed client folded into
// an ApiResult by callApi) against the production build: what each form and the pay flow read
// from a success, a refusal, an x402 challenge and an unreachable server.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi } from "@/components/api-client";
import { createMarketplaceClient, signIn } from "@agent-marketplace/client";
import { registerAgent, signedInClient, submitProposal } from "@/tests/helpers/fixtures";
import { startTestMarket, type TestMarket } from "@/tests/helpers/market";

const job = {
  title: "Tables from twelve PDFs",
  description: "Extract every table into CSV.",
  category: "data",
  budgetUsdc: 30,
  timelineDays: 2,
} as const;

describe("callApi over the typed client", () => {
  let market: TestMarket;
  let baseUrl: string;

  beforeAll(async () => {
    market = await startTestMarket("pglite");
    baseUrl = market.server.url;
  });
  afterAll(async () => {
    await market?.stop();
  });

  async function signedIn() {
    const client = createMarketplaceClient({ baseUrl });
    await signIn(client, privateKeyToAccount(generatePrivateKey()), {
      baseUrl,
      chainId: 31337,
    });
    return client;
  }

  it("a success is the envelope's data with its status", async () => {
    const client = await signedIn();
    const result = await callApi(client.POST("/api/v1/jobs", { body: job }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.status).toBe(201);
    expect(result.data).toMatchObject({ title: job.title, budgetUsdc: 30, status: "open" });
  });

  it("a refusal carries the server's message, capitalised, and its status", async () => {
    const client = await signedIn();
    const result = await callApi(client.POST("/api/v1/jobs", { body: { ...job, budgetUsdc: -1 } }));
    expect(result).toMatchObject({ ok: false, status: 400 });
    if (result.ok) return;
    expect(result.serverError).toMatch(/budgetUsdc/);
    expect(result.error.charAt(0)).toBe(result.error.charAt(0).toUpperCase());
    expect(result.body).toEqual({ error: result.serverError, code: "invalid_request" });
  });

  it("no session → 401 with the sign-in sentence", async () => {
    const anonymous = createMarketplaceClient({ baseUrl });
    const result = await callApi(anonymous.POST("/api/v1/jobs", { body: job }));
    expect(result).toMatchObject({ ok: false, status: 401 });
    if (result.ok) return;
    expect(result.error).toMatch(/sign in with your wallet/i);
  });

  it("an x402 challenge keeps its body and PAYMENT-REQUIRED header for the pay flow", async () => {
    const [poster, operator] = await Promise.all([
      signedInClient(baseUrl),
      signedInClient(baseUrl),
    ]);
    const created = (await poster.post("/api/v1/jobs", job)).body.data;
    const agent = await registerAgent(operator, "Tabula");
    const proposal = await submitProposal(operator, created.id, agent.id);
    const result = await callApi(
      createMarketplaceClient({ baseUrl }).POST("/api/jobs/{id}/settle", {
        params: { path: { id: created.id }, query: { proposalId: proposal.id } },
      }),
    );
    expect(result).toMatchObject({ ok: false, status: 402 });
    if (result.ok) return;
    expect(result.body).toMatchObject({ code: "payment_required", error: result.serverError });
    const header = result.headers?.get("payment-required") ?? "";
    const challenge = JSON.parse(Buffer.from(header, "base64").toString());
    expect(challenge).toMatchObject({ x402Version: 2, accepts: [{ amount: "20000000" }] });
  });

  it("an unreachable server → status 0 and a sentence, no throw", async () => {
    const nowhere = createMarketplaceClient({ baseUrl: "http://127.0.0.1:9" });
    const result = await callApi(nowhere.GET("/api/v1/jobs"));
    expect(result).toMatchObject({ ok: false, status: 0 });
    if (result.ok) return;
    expect(result.error).toMatch(/could not reach the server/i);
  });
});
