// An in-memory ganache for integration tests (vitest) and Playwright: a free port on
// 127.0.0.1, chain id 31337, the deterministic wallet, TestUSDC deployed and the demo
// accounts funded exactly as `npm run chain` does.
import ganache from "ganache";
import { deployLocalChain, localGanacheOptions } from "@/lib/payments/local-chain";

export interface TestChain {
  rpcUrl: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * `port`: 0 (default) picks a free one; give a fixed one when the URL must be known before the
 * chain starts (e.g. a Playwright webServer env). `deploy: false` leaves the chain empty.
 */
export async function startTestChain(
  options: { port?: number; deploy?: boolean } = {},
): Promise<TestChain> {
  const server = ganache.server(localGanacheOptions());
  await server.listen(options.port ?? 0, "127.0.0.1");
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
