import { spawn } from "node:child_process";
import { type Address, createPublicClient, http } from "viem";
import { testUsdcAbi } from "@/dev/contracts";
import {
  LOCAL_CHAIN_ID,
  LOCAL_FACILITATOR_ENV,
  LOCAL_TOKEN_EIP712_DOMAIN,
} from "@/dev/local-chain";
import { type Env, getConfig } from "@/lib/platform/config";
import { resolveSettlementNetwork } from "@/lib/payments/chain/network";
import { tsxBin } from "./run";

/**
 * For `npm run dev`: the local chain (`npm run chain`) as a child process, unless one is
 * already answering at CHAIN_RPC_URL. Resolves once the RPC is ready and the token deployed.
 */
export async function startDevChain(
  network: { rpcUrl: string; asset: Address } = localNetwork(),
): Promise<{ stop(): Promise<void> }> {
  const { rpcUrl, asset } = network;
  if (await rpcAnswers(rpcUrl)) {
    await assertOurChain(rpcUrl, asset);
    console.log(`Local chain already running at ${rpcUrl}`);
    return { stop: async () => {} };
  }
  const port = new URL(rpcUrl).port || "8545";
  const child = spawn(tsxBin, ["scripts/chain.ts", "--port", port], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  const deadline = Date.now() + 60_000;
  while (!(await tokenDeployed(rpcUrl, asset))) {
    if (child.exitCode !== null) throw new Error("the local chain did not start (see above)");
    if (Date.now() > deadline)
      throw new Error(`the local chain did not answer at ${rpcUrl} within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return { stop };
}

/**
 * Whatever answers at `rpcUrl` must be our local chain: chain 31337 with our test token at its
 * address. Another node on that port (a mainnet fork, another project's chain) would only
 * show up as failed payments; it is refused here, saying what answered and what was expected.
 */
export async function assertOurChain(rpcUrl: string, asset: Address): Promise<void> {
  const expected =
    `the local chain (id ${LOCAL_CHAIN_ID}) with the test token ` +
    `"${LOCAL_TOKEN_EIP712_DOMAIN.name}" at ${asset}`;
  const advice =
    "Stop whatever runs there, or point CHAIN_RPC_URL (and CHAIN_PORT) at a free port for " +
    "`npm run dev` to start our chain on.";
  const chainId = Number(await rpc(rpcUrl, "eth_chainId", []));
  if (chainId !== LOCAL_CHAIN_ID) {
    throw new Error(
      `Chain ${chainId} answers at ${rpcUrl}, but npm run dev needs ${expected}. ${advice}`,
    );
  }
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
  let name: string | undefined;
  try {
    name = await client.readContract({ address: asset, abi: testUsdcAbi, functionName: "name" });
  } catch {
    name = undefined;
  }
  if (name !== LOCAL_TOKEN_EIP712_DOMAIN.name) {
    const found = name === undefined ? "no token contract" : `a token named "${name}"`;
    throw new Error(
      `A chain ${chainId} answers at ${rpcUrl} with ${found} at ${asset}, but npm run dev ` +
        `needs ${expected}: it is not ours (or its state was reset without the token). ${advice}`,
    );
  }
}

async function rpc(rpcUrl: string, method: string, params: unknown[]) {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(2_000),
  });
  return ((await response.json()) as { result?: unknown }).result;
}

async function rpcAnswers(rpcUrl: string) {
  try {
    return (await rpc(rpcUrl, "eth_chainId", [])) !== undefined;
  } catch {
    return false;
  }
}

/**
 * The chain's RPC and token as configured. Not getSettlementNetwork(): that also resolves the
 * facilitator, whose key this process has none of (npm run dev gives the app server the local
 * chain's, LOCAL_FACILITATOR_ENV), and a fresh checkout's `npm run dev` stopped here.
 */
export function localNetwork(config: Env = getConfig()) {
  return resolveSettlementNetwork({
    ...config,
    FACILITATOR_PRIVATE_KEY:
      config.FACILITATOR_PRIVATE_KEY ?? LOCAL_FACILITATOR_ENV.FACILITATOR_PRIVATE_KEY,
  });
}

async function tokenDeployed(rpcUrl: string, asset: string) {
  try {
    const code = await rpc(rpcUrl, "eth_getCode", [asset, "latest"]);
    return typeof code === "string" && code.length > 2;
  } catch {
    return false;
  }
}
