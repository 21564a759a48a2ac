// An in-memory ganache for integration tests (vitest) and Playwright: a free port on
// 127.0.0.1, chain id 31337, the deterministic wallet, TestUSDC deployed and the demo
// accounts funded exactly as `npm run chain` does.
import ganache from "ganache";
import { deployLocalChain, LOCAL_CHAIN_ID } from "@/lib/payments/local-chain";

export interface TestChain {
  rpcUrl: string;
  port: number;
  stop(): Promise<void>;
}

export function ganacheOptions(options: { dbPath?: string } = {}) {
  return {
    chain: { chainId: LOCAL_CHAIN_ID },
    wallet: { deterministic: true, defaultBalance: 10_000 },
    logging: { quiet: true },
    miner: { instamine: "eager" as const },
    ...(options.dbPath ? { database: { dbPath: options.dbPath } } : {}),
  };
}

export async function startTestChain(options: { deploy?: boolean } = {}): Promise<TestChain> {
  const server = ganache.server(ganacheOptions());
  await server.listen(0, "127.0.0.1");
  const { port } = server.address();
  const rpcUrl = `http://127.0.0.1:${port}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.close();
  };
  try {
    if (options.deploy !== false) await deployLocalChain(rpcUrl);
  } catch (error) {
    await stop();
    throw error;
  }
  return { rpcUrl, port, stop };
}
