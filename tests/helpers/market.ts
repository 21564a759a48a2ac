// A marketplace under test: a local chain (Hardhat's node + TestUSDC), a fresh database and the
// production build (`next start`), settling real payments with the in-process facilitator.
import type { Hex, LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { mintTestUsdc } from "@/dev/local-chain";
import { ApiClient } from "./api";
import { startTestChain, type TestChain } from "./chain";
import type { DbKind } from "./db";
import { prepareServerDatabase, type RunningServer, startServer } from "./server";
import { fetchChallenge, payWaitingOnPending } from "./x402";

export interface TestMarket {
  chain: TestChain;
  server: RunningServer;
  kind: DbKind;
  /** PostgreSQL only: the DATABASE_URL (with ?schema=) the server uses. */
  databaseUrl?: string;
  stop(): Promise<void>;
}

export async function startTestMarket(
  kind: DbKind,
  env: Record<string, string> = {},
): Promise<TestMarket> {
  const chain = await startTestChain();
  const database = await prepareServerDatabase(kind);
  try {
    const server = await startServer({ ...database.env, CHAIN_RPC_URL: chain.rpcUrl, ...env });
    return {
      chain,
      server,
      kind,
      databaseUrl: database.env.DATABASE_URL,
      async stop() {
        await server.stop();
        await chain.stop();
        await database.cleanup();
      },
    };
  } catch (error) {
    await chain.stop();
    await database.cleanup();
    throw error;
  }
}

/** Where payments go: a chain to fund payers on and a server to pay through. */
export interface PaymentTarget {
  chain: Pick<TestChain, "rpcUrl">;
  server: Pick<RunningServer, "url">;
}

/**
 * Pays `proposalId` of `jobId` as the README's programmatic payer does (@x402/fetch signed by
 * the payer's wallet), after minting the bid to that wallet. Returns the settlement's hash.
 */
export async function payFor(
  market: PaymentTarget,
  payer: ApiClient | LocalAccount,
  jobId: string,
  proposalId: string,
): Promise<Hex> {
  const account = "signMessage" in payer ? payer : payer.account;
  if (!account) throw new Error("payFor needs a wallet");
  const url = `${market.server.url}/api/jobs/${jobId}/settle?proposalId=${proposalId}`;
  const challenge = await fetchChallenge(url);
  if (challenge.status !== 402) {
    throw new Error(
      `expected a 402 challenge, got ${challenge.status} ${JSON.stringify(challenge.body)}`,
    );
  }
  const amount = BigInt(challenge.paymentRequired.accepts[0]!.amount);
  await mintTestUsdc(market.chain.rpcUrl, account.address, amount);
  // As the README tells a payer: on 409 settlement_pending, wait and send the same signature.
  const { status, body } = await payWaitingOnPending(account, url);
  if (status !== 200) {
    throw new Error(`payment refused: ${status} ${JSON.stringify(body)}`);
  }
  return body.data.txHash as Hex;
}

/** One payment to make: a funded poster's open job with one bid by a fresh agent. */
export interface PaymentCase {
  poster: ApiClient;
  payer: LocalAccount;
  operator: ApiClient;
  job: { id: string; bidAtomic: bigint };
  proposalId: string;
  agentWallet: string;
  /** The settle URL on `baseUrl` (default: the server the case was made on). */
  settleUrl(baseUrl?: string): string;
}

/**
 * Makes a payment case on `market`: the poster holds ten times the bid, so that a double
 * payment would show in the balance instead of failing for want of funds. `payer`: the
 * poster's wallet (default a fresh one), for a test that needs its key.
 */
export async function newPaymentCase(
  market: PaymentTarget,
  bidUsdc = 7.25,
  payer: LocalAccount = privateKeyToAccount(generatePrivateKey()),
): Promise<PaymentCase> {
  const baseUrl = market.server.url;
  const [poster, operator] = await Promise.all([
    new ApiClient(baseUrl, payer).signIn(),
    new ApiClient(baseUrl, privateKeyToAccount(generatePrivateKey())).signIn(),
  ]);
  const bidAtomic = BigInt(Math.round(bidUsdc * 1_000_000));
  await mintTestUsdc(market.chain.rpcUrl, payer.address, bidAtomic * 10n);
  const agent = (await operator.post("/api/v1/agents", { name: "Payee", categories: ["data"] }))
    .body.data;
  const job = (
    await poster.post("/api/v1/jobs", {
      title: "A paid job",
      description: "d",
      category: "data",
      budgetUsdc: 100,
      timelineDays: 2,
    })
  ).body.data;
  const bid = await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
    agentId: agent.id,
    bidUsdc,
    etaDays: 1,
    message: "bid",
  });
  const proposal = bid.body.data;
  if (bid.status !== 201) {
    throw new Error(`could not set up the payment case: ${bid.status} ${JSON.stringify(bid.body)}`);
  }
  // A new agent is paid at its operator's wallet: no payee consent to wait for.
  if (!agent.walletAddress) throw new Error("the new agent has no payee wallet");
  return {
    poster,
    payer,
    operator,
    job: { id: job.id, bidAtomic },
    proposalId: proposal.id,
    agentWallet: agent.walletAddress,
    settleUrl: (url = baseUrl) => `${url}/api/jobs/${job.id}/settle?proposalId=${proposal.id}`,
  };
}
