// Reputation farming, tried over HTTP against the production build on the local chain: the
// cycle of the issue (an agent paying the poster's own wallet, dust amounts) is refused at
// each step with its code, and settle attempts are limited per payer wallet, however many
// client addresses they come from. None of it costs the platform's gas key a transaction.
import { createPublicClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_FACILITATOR_ADDRESS, localChain } from "@/dev/local-chain";
import { ApiClient } from "@/tests/helpers/api";
import { startTestMarket, type TestMarket } from "@/tests/helpers/market";
import { fetchChallenge, signPaymentHeader } from "@/tests/helpers/x402";

const newClient = (market: TestMarket) =>
  new ApiClient(market.server.url, privateKeyToAccount(generatePrivateKey())).signIn();

describe("reputation farming over HTTP", () => {
  let market: TestMarket;
  let gasKeyNonce: () => Promise<number>;

  beforeAll(async () => {
    market = await startTestMarket("pglite", {
      RATE_LIMIT_WRITES_PER_MINUTE: "6",
      // Client addresses from X-Forwarded-For, as behind one proxy: the per-address limit is
      // then easy to sidestep, the per-payer one is not.
      TRUST_PROXY_HOPS: "1",
    });
    const reader = createPublicClient({
      chain: localChain(market.chain.rpcUrl),
      transport: http(market.chain.rpcUrl),
    });
    gasKeyNonce = () => reader.getTransactionCount({ address: LOCAL_FACILITATOR_ADDRESS });
  });
  afterAll(() => market?.stop());

  let forwardedFor = 0;
  /** Each write from its own client address, so only wallet keys can add up. */
  const fresh = () => ({ "x-forwarded-for": `198.51.100.${++forwardedFor % 250}` });

  it("refuses the farming cycle at each step, with its code", async () => {
    const nonceBefore = await gasKeyNonce();
    const [a, b] = await Promise.all([newClient(market), newClient(market)]);
    // B names A's wallet as its agent's payee: A has not agreed.
    const agent = await b.post(
      "/api/v1/agents",
      { name: "Farm", categories: ["data"], walletAddress: a.account!.address },
      fresh(),
    );
    expect(agent.status).toBe(201);
    expect(agent.body.data).toMatchObject({ walletAddress: null, payeeConsentPending: true });
    // A posts dust: 400.
    const job = { title: "T", description: "D", category: "data", timelineDays: 1 };
    const dust = await a.post("/api/v1/jobs", { ...job, budgetUsdc: 0.000001 }, fresh());
    expect(dust.status).toBe(400);
    expect(dust.body).toMatchObject({ code: "amount_below_minimum" });
    const posted = await a.post("/api/v1/jobs", { ...job, budgetUsdc: 5 }, fresh());
    expect(posted.status).toBe(201);
    const bid = { agentId: agent.body.data.id, bidUsdc: 5, etaDays: 1, message: "m" };
    const path = `/api/v1/jobs/${posted.body.data.id}/proposals`;
    // B bids: the payee never agreed.
    const pending = await b.post(path, bid, fresh());
    expect(pending.status).toBe(409);
    expect(pending.body).toMatchObject({ code: "payee_consent_pending" });
    // A agrees; now the bid would pay A's own job to A.
    await a.consentAsPayee(agent.body.data.id);
    const self = await b.post(path, bid, fresh());
    expect(self.status).toBe(403);
    expect(self.body).toMatchObject({ code: "self_payment" });
    // Nothing was paid, no badge, and the gas key sent nothing.
    expect((await a.get(`/api/v1/jobs/${posted.body.data.id}`)).body.data).toMatchObject({
      status: "open",
      posterVerified: false,
    });
    expect(await gasKeyNonce()).toBe(nonceBefore);
  });

  it("limits settle attempts per payer wallet, from any address; the gas key sends nothing", async () => {
    const [poster, operator] = await Promise.all([newClient(market), newClient(market)]);
    const agent = (
      await operator.post("/api/v1/agents", { name: "Bot", categories: ["data"] }, fresh())
    ).body.data;
    const job = (
      await poster.post(
        "/api/v1/jobs",
        { title: "T", description: "D", category: "data", budgetUsdc: 5, timelineDays: 1 },
        fresh(),
      )
    ).body.data;
    const proposal = (
      await operator.post(
        `/api/v1/jobs/${job.id}/proposals`,
        { agentId: agent.id, bidUsdc: 5, etaDays: 1, message: "m" },
        fresh(),
      )
    ).body.data;
    const url = `${market.server.url}/api/jobs/${job.id}/settle?proposalId=${proposal.id}`;
    const challenge = await fetchChallenge(url);
    // Unfunded: every attempt is refused before the facilitator sends anything.
    const attempt = async () => {
      const header = await signPaymentHeader(poster.account!, challenge.paymentRequired);
      const response = await fetch(url, {
        method: "POST",
        headers: { "payment-signature": header, ...fresh() },
      });
      return { status: response.status, body: (await response.json()) as { code?: string } };
    };
    const nonceBefore = await gasKeyNonce();
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await attempt());
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.body.code).toBe("rate_limited");
    // The first ones were judged (refused for want of funds), never charged.
    expect(answers[0]!.status).toBe(402);
    expect(await gasKeyNonce()).toBe(nonceBefore);
    // Another payer is not held back by this one.
    const other = await newClient(market);
    const header = await signPaymentHeader(other.account!, challenge.paymentRequired);
    const theirs = await fetch(url, {
      method: "POST",
      headers: { "payment-signature": header, ...fresh() },
    });
    expect(theirs.status).toBe(402);
  });
});
