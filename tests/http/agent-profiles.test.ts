// PATCH /api/v1/agents/:id over HTTP against the production build (the domain's table is in
// lib/marketplace/agent-profiles.test.ts): the operator edits, everyone else is refused, bad
// bodies are 400 with the schema's message, and a payee change after a bid leaves that bid's
// payment with the wallet it was made with. Every answer is checked against the OpenAPI
// document by ApiClient.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "@/tests/helpers/api";
import {
  createJob,
  expectStatus,
  registerAgent,
  signedInClient,
  submitProposal,
} from "@/tests/helpers/fixtures";
import { payFor, startTestMarket, type TestMarket } from "@/tests/helpers/market";
import { fetchChallenge, tokenReader } from "@/tests/helpers/x402";

describe("PATCH /api/v1/agents/:id", () => {
  let market: TestMarket;
  let operator: ApiClient;
  let stranger: ApiClient;
  let poster: ApiClient;

  beforeAll(async () => {
    market = await startTestMarket("pglite");
    [operator, stranger, poster] = await Promise.all([
      signedInClient(market.server.url),
      signedInClient(market.server.url),
      signedInClient(market.server.url),
    ]);
  });
  afterAll(async () => {
    await market?.stop();
  });

  const patch = (client: ApiClient, id: string, json: unknown) =>
    client.request("PATCH", `/api/v1/agents/${id}`, { json });

  /** A signed-in wallet that can consent to be a payee. */
  const newPayeeClient = () =>
    new ApiClient(market.server.url, privateKeyToAccount(generatePrivateKey())).signIn();

  it("lets the operator edit the profile; GET shows the edit; a new payee once it consents", async () => {
    const agent = await registerAgent(operator, "Before");
    const payeeClient = await newPayeeClient();
    const payee = payeeClient.account!.address;
    const edited = expectStatus(
      await patch(operator, agent.id, {
        name: "After",
        description: "Tables from PDFs.",
        categories: ["data", "research"],
        walletAddress: payee.toLowerCase(),
      }),
      200,
      "edit",
    ).data;
    expect(edited).toMatchObject({
      id: agent.id,
      name: "After",
      description: "Tables from PDFs.",
      categories: ["data", "research"],
      // The operator's wallet pays until the named one agrees.
      walletAddress: operator.account!.address,
      payeeConsentPending: true,
      operatorAddress: operator.account!.address,
    });
    const anonymous = new ApiClient(market.server.url);
    expect((await anonymous.get(`/api/v1/agents/${agent.id}`)).body.data).toEqual(edited);
    // Who may read the request: the operator and the named wallet; not a stranger.
    expect((await stranger.get(`/api/v1/agents/${agent.id}/payee-consent`)).status).toBe(403);
    expect((await anonymous.get(`/api/v1/agents/${agent.id}/payee-consent`)).status).toBe(401);
    expect(
      (await operator.get(`/api/v1/agents/${agent.id}/payee-consent`)).body.data,
    ).toMatchObject({
      agentId: agent.id,
      payeeAddress: payee,
      operatorAddress: operator.account!.address,
    });
    // A forged signature over HTTP: 403 invalid_consent_signature, nothing changes.
    const forged = await anonymous.post(`/api/v1/agents/${agent.id}/payee-consent`, {
      signature: `0x${"11".repeat(65)}`,
    });
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe("invalid_consent_signature");
    expect(await payeeClient.consentAsPayee(agent.id)).toMatchObject({
      walletAddress: payee,
      payeeConsentPending: false,
    });
    expect((await anonymous.get(`/api/v1/agents/${agent.id}`)).body.data.walletAddress).toBe(payee);
  });

  it("refuses a stranger (403), an anonymous caller (401) and an unknown agent (404)", async () => {
    const agent = await registerAgent(operator);
    const refused = await patch(stranger, agent.id, { name: "Mine" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/only the agent's operator/);
    expect((await patch(new ApiClient(market.server.url), agent.id, { name: "X" })).status).toBe(
      401,
    );
    expect((await patch(operator, "agent_unknown0000000000000", { name: "X" })).status).toBe(404);
  });

  it.each([
    [{}, /at least one of: name, description, categories, walletAddress/],
    [{ name: "" }, /name must not be empty/],
    [{ categories: [] }, /categories must name at least one category/],
    [{ walletAddress: "0x123" }, /not a valid wallet address/],
  ])("answers %j with 400 and the schema's message", async (json, message) => {
    const agent = await registerAgent(operator);
    const refused = await patch(operator, agent.id, json);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(message);
  });

  it("pays a bid made before a payee change to the wallet it was made with", async () => {
    const agent = await registerAgent(operator, "Payee test");
    const job = await createJob(poster);
    const proposal = await submitProposal(operator, job.id, agent.id, { bidUsdc: 4 });
    expect(proposal.payeeAddress).toBe(operator.account!.address);
    const payeeWallet = await newPayeeClient();
    const newPayee = payeeWallet.account!.address;
    expectStatus(await patch(operator, agent.id, { walletAddress: newPayee }), 200, "edit");
    await payeeWallet.consentAsPayee(agent.id);

    const url = `${market.server.url}/api/jobs/${job.id}/settle?proposalId=${proposal.id}`;
    const challenge = await fetchChallenge(url);
    expect(challenge.status).toBe(402);
    expect(challenge.paymentRequired.accepts[0]!.payTo).toBe(operator.account!.address);

    const token = tokenReader(market.chain.rpcUrl);
    const before = await token.balanceOf(operator.account!.address);
    const txHash = await payFor(market, poster, job.id, proposal.id);
    expect((await token.balanceOf(operator.account!.address)) - before).toBe(4_000_000n);
    expect(await token.balanceOf(newPayee)).toBe(0n);
    expectStatus(
      await poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: proposal.id, txHash }),
      200,
      "accept",
    );

    const next = await createJob(poster);
    const bid = await submitProposal(operator, next.id, agent.id);
    expect(bid.payeeAddress).toBe(newPayee);
    const nextChallenge = await fetchChallenge(
      `${market.server.url}/api/jobs/${next.id}/settle?proposalId=${bid.id}`,
    );
    expect(nextChallenge.paymentRequired.accepts[0]!.payTo).toBe(newPayee);
  });
});
