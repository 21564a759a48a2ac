// The domain in-process: lib/ called directly, configured the way a server is (from this
// process's environment) on a fresh database, a local chain of its own and the in-process
// facilitator. No build, no spawned server. One per test file: the configuration, the
// database and the facilitator are per-process singletons.
import { randomBytes } from "node:crypto";
import { type Address, type LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { LOCAL_FACILITATOR_ENV, mintTestUsdc } from "@/dev/local-chain";
import { closeDb, type Db, getDb } from "@/lib/db";
import {
  consentToAgentPayee,
  getPayeeConsentRequest,
  registerAgent,
} from "@/lib/marketplace/agents";
import { LOCAL_TOKEN_ADDRESS } from "@/lib/payments/chain/local-network";
import { createJob } from "@/lib/marketplace/jobs";
import { submitProposal } from "@/lib/marketplace/proposals";
import { settleJobPayment } from "@/lib/payments/settle/settle";
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

/**
 * `address` with its first 39 hex digits in upper case and its last in lower case: a case no
 * writer stores (EIP-55 would not have every letter upper case), which reads as written
 * (serialize.ts's checksumStoredAddress).
 */
export const miscasedAddress = (address: string): string =>
  `0x${address.slice(2, 41).toUpperCase()}${address.slice(41).toLowerCase()}`;

/**
 * `payee` signs the consent request of the agent that names it (as a wallet does: the typed
 * data the API gives it, eth_signTypedData_v4) and the signature is sent.
 */
export async function consentAsPayee(db: Db, payee: LocalAccount, agentId: string) {
  const request = await getPayeeConsentRequest(db, payee.address, agentId);
  const { typedData } = request;
  const signature = await payee.signTypedData({
    ...typedData,
    message: { ...typedData.message, deadline: BigInt(typedData.message.deadline) },
  });
  return consentToAgentPayee(db, agentId, signature);
}

/**
 * A job of `posterAddress` done by `agentId` and paid as the ledger says, written straight
 * into the tables (as data from before today's rules, or to build a history fast): the job,
 * its accepted proposal and a succeeded settlement of `amountAtomic` from `payer` (the poster
 * by default) to the agent's payee.
 */
export async function seedPaidJob(
  db: Db,
  options: {
    posterAddress: Address;
    agentId: string;
    amountAtomic: bigint;
    status: "in_progress" | "delivered" | "completed";
    payer?: Address;
  },
): Promise<string> {
  const agent = await db.agent.findUniqueOrThrow({ where: { id: options.agentId } });
  const payTo = agent.walletAddress ?? agent.operatorAddress;
  const suffix = randomBytes(8).toString("hex");
  const [jobId, proposalId] = [`job_seed${suffix}`, `prop_seed${suffix}`];
  const txHash = `0x${randomBytes(32).toString("hex")}`;
  await db.wallet.upsert({
    where: { address: options.posterAddress },
    create: { address: options.posterAddress },
    update: {},
  });
  await db.job.create({
    data: {
      ...jobFields(jobInput()),
      id: jobId,
      posterAddress: options.posterAddress,
      budgetAtomic: options.amountAtomic,
      handle: `@${options.posterAddress.slice(2, 8)}`,
      status: "open",
    },
  });
  await db.proposal.create({
    data: {
      id: proposalId,
      jobId,
      agentId: agent.id,
      bidAtomic: options.amountAtomic,
      etaDays: 1,
      message: "seeded",
      payeeAddress: payTo,
      status: "accepted",
    },
  });
  await db.settlement.create({
    data: {
      id: `stl_seed${suffix}`,
      jobId,
      proposalId,
      payer: options.payer ?? options.posterAddress,
      payTo,
      amountAtomic: options.amountAtomic,
      network: "eip155:31337",
      asset: LOCAL_TOKEN_ADDRESS,
      authorizationNonce: `0x${randomBytes(32).toString("hex")}`,
      validBefore: 0n,
      txHash,
      status: "succeeded",
      settledAt: new Date(),
    },
  });
  await db.job.update({
    where: { id: jobId },
    data: {
      status: options.status,
      assignedAgentId: agent.id,
      acceptedProposalId: proposalId,
      paymentTxHash: txHash,
      ...(options.status !== "in_progress" ? { deliveredAt: new Date() } : {}),
      ...(options.status === "completed" ? { completedAt: new Date() } : {}),
    },
  });
  return jobId;
}

const jobFields = (input: ReturnType<typeof jobInput>) => ({
  title: input.title,
  description: input.description,
  category: input.category,
  timelineDays: input.timelineDays,
  requirements: input.requirements,
});

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
