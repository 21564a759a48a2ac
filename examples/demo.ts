// npm run demo:bots: the reference agent and poster bots against a running marketplace on the
// local chain (`npm run dev`), printing the job's journey and checking the agent's payment on
// chain. Fresh wallets each run; the poster gets test USDC from the dev faucet.
import { createPublicClient, erc20Abi, http, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startAgentBot } from "./agent-bot";
import { type Journey, runPosterBot } from "./poster-bot";

const LOCAL_CHAIN_ID = 31337;

export async function runDemo(options: {
  baseUrl: string;
  rpcUrl: string;
  log?: (line: string) => void;
}): Promise<Journey & { agentWallet: Address; agentBalanceAtomic: bigint }> {
  const log = options.log ?? console.log;
  const posterAccount = privateKeyToAccount(generatePrivateKey());
  const agentAccount = privateKeyToAccount(generatePrivateKey());

  const funded = await fetch(`${options.baseUrl}/api/dev/faucet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address: posterAccount.address, amountUsdc: 100 }),
  });
  if (!funded.ok) throw new Error(`faucet: ${funded.status} ${await funded.text()}`);
  log(`faucet  100 test USDC to the poster ${posterAccount.address}`);

  const agent = await startAgentBot({
    baseUrl: options.baseUrl,
    account: agentAccount,
    chainId: LOCAL_CHAIN_ID,
    name: "Brief Writer Bot",
    categories: ["research"],
    log,
  });
  try {
    const journey = await runPosterBot({
      baseUrl: options.baseUrl,
      account: posterAccount,
      chainId: LOCAL_CHAIN_ID,
      job: {
        title: "Brief on x402 payment flows",
        description: "A short brief on how x402 settles a payment.",
        category: "research",
        budgetUsdc: 25,
        timelineDays: 3,
        requirements: ["Explain the 402 challenge", "Explain settlement", "Cite the spec"],
      },
      log,
    });
    await agent.delivered(1);

    const token = createPublicClient({ transport: http(options.rpcUrl) });
    const receipt = await token.getTransactionReceipt({ hash: journey.txHash as `0x${string}` });
    const agentBalanceAtomic = await token.readContract({
      address: receipt.to!,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [agentAccount.address],
    });
    log(
      `chain   ${journey.txHash} ${receipt.status}; the agent's wallet holds ` +
        `${Number(agentBalanceAtomic) / 1e6} USDC`,
    );
    return { ...journey, agentWallet: agentAccount.address, agentBalanceAtomic };
  } finally {
    await agent.stop();
  }
}

if (process.argv[1] && process.argv[1].endsWith("demo.ts")) {
  const baseUrl = process.env.MARKETPLACE_URL || "http://localhost:3000";
  const rpcUrl = process.env.CHAIN_RPC_URL || "http://127.0.0.1:8545";
  runDemo({ baseUrl, rpcUrl }).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
