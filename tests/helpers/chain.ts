// An in-memory ganache for integration tests (vitest) and Playwright: a free port on
// 127.0.0.1, chain id 31337, the deterministic wallet, TestUSDC deployed and the demo
// accounts funded exactly as `npm run chain` does.
import ganache from "ganache";
import { deployLocalChain, localGanacheOptions } from "@/dev/local-chain";

export interface TestChain {
  rpcUrl: string;
  port: number;
  /** A raw JSON-RPC call (e.g. miner_stop, evm_snapshot, evm_increaseTime). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

/**
 * `port`: 0 (default) picks a free one; give a fixed one when the URL must be known before the
 * chain starts (e.g. a Playwright webServer env). `deploy: false` leaves the chain empty, as
 * does another `chainId` (a stand-in for Base's JSON-RPC in start-up checks).
 */
export async function startTestChain(
  options: { port?: number; deploy?: boolean; chainId?: number } = {},
): Promise<TestChain> {
  const ganacheOptions = localGanacheOptions();
  if (options.chainId) ganacheOptions.chain.chainId = options.chainId;
  const server = ganache.server(ganacheOptions);
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
    if (options.deploy !== false && !options.chainId) await deployLocalChain(rpcUrl);
  } catch (error) {
    await stop();
    throw error;
  }
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  return { rpcUrl, port, rpc, stop };
}
