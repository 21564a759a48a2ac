// The domain in-process: lib/ called directly, configured the way a server is (from this
// process's environment) on a fresh database, a local chain of its own and the in-process
// facilitator. No build, no spawned server. One per test file: the configuration, the
// database and the facilitator are per-process singletons.
import { randomBytes } from "node:crypto";
import { type Address, type LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { LOCAL_FACILITATOR_ENV, mintTestUsdc } from "@/dev/local-chain";
import { closeDb, type Db, getDb } from "@/lib/db";
import { registerAgent } from "@/lib/marketplace/agents";
import { createJob } from "@/lib/marketplace/jobs";
import { submitProposal } from "@/lib/marketplace/proposals";
import { settleJobPayment } from "@/lib/payments/settle";
import { createAgentSchema } from "@/lib/shared/schemas/agents";
import { createJobSchema } from "@/lib/shared/schemas/jobs";
import { createProposalSchema } from "@/lib/shared/schemas/proposals";
import { startTestChain, type TestChain } from "./chain";
import { prepareServerDatabase } from "./server";
import { signPaymentHeader } from "./x402";

export interface InProcessMarket {
  db: Db;
  chain: TestChain;
  stop(): Promise<void>;
}

export async function startInProcessMarket(
  env: Record<string, string> = {},
): Promise<InProcessMarket> {
  const chain = await startTestChain();
  const database = await prepareServerDatabase("pglite");
  const saved = { ...process.env };
  Object.assign(process.env, {
    ...LOCAL_FACILITATOR_ENV,
    CHAIN_RPC_URL: chain.rpcUrl,
    SESSION_SECRET: randomBytes(32).toString("hex"),
    ...database.env,
    ...env,
  });
  const db = await getDb();
  return {
    db,
    chain,
    async stop() {
      await closeDb();
      await chain.stop();
      await database.cleanup();
      process.env = saved;
    },
  };
}

export const newWallet = (): LocalAccount => privateKeyToAccount(generatePrivateKey());

/** Inputs as the route handlers pass them: parsed by the same schemas. */
export const jobInput = (fields: Record<string, unknown> = {}) =>
  createJobSchema.parse({
    title: "Summarise 20 papers",
    description: "Read and summarise the attached papers.",
    category: "research",
    budgetUsdc: 25.5,
    timelineDays: 3,
    ...fields,
  });
export const agentInput = (fields: Record<string, unknown> = {}) =>
  createAgentSchema.parse({ name: "Agent", categories: ["research"], ...fields });
export const proposalInput = (agentId: string, fields: Record<string, unknown> = {}) =>
  createProposalSchema.parse({
    agentId,
    bidUsdc: 7.25,
    etaDays: 2,
    message: "I can do this.",
    ...fields,
  });

/** A poster's open job and one agent's pending bid on it. */
export async function jobWithBid(db: Db, poster: Address, operator: Address, bidUsdc = 7.25) {
  const job = await createJob(db, poster, jobInput());
  const agent = await registerAgent(db, operator, agentInput());
  const proposal = await submitProposal(db, operator, job.id, proposalInput(agent.id, { bidUsdc }));
  return { job, agent, proposal };
}

/**
 * The poster's payment for a proposal as a wallet makes it: the challenge, the bid minted to
 * the payer, the authorization signed for the challenge's terms (or broken by `sign`).
 */
export async function signedPayment(
  market: InProcessMarket,
  payer: LocalAccount,
  target: { jobId: string; proposalId: string },
  sign: Parameters<typeof signPaymentHeader>[2] = {},
): Promise<string> {
  const challenge = await settleJobPayment(market.db, {
    ...target,
    paymentHeader: null,
    resourceUrl: resourceUrl(target),
  });
  if (challenge.kind !== "payment_required") throw new Error("expected a payment challenge");
  const amount = BigInt(challenge.paymentRequired.accepts[0]!.amount);
  await mintTestUsdc(market.chain.rpcUrl, payer.address, amount);
  return signPaymentHeader(payer, challenge.paymentRequired, sign);
}

export const resourceUrl = (target: { jobId: string; proposalId: string }) =>
  `http://127.0.0.1/api/jobs/${target.jobId}/settle?proposalId=${target.proposalId}`;

/** Settles `header` and returns the transaction hash (throws on any other outcome). */
export async function settle(
  market: InProcessMarket,
  target: { jobId: string; proposalId: string },
  paymentHeader: string,
) {
  const outcome = await settleJobPayment(market.db, {
    ...target,
    paymentHeader,
    resourceUrl: resourceUrl(target),
  });
  if (outcome.kind !== "settled") throw new Error(`not settled: ${outcome.code}`);
  return outcome.data.txHash as `0x${string}`;
}
