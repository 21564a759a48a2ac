// A server whose chain RPC goes through a fault proxy (tests/helpers/fault-proxy.ts): a local
// chain, the proxy in front of it, a fresh database and one server on them. The tests that
// inject chain faults or count the server's chain calls start it so; stop() ends everything in
// reverse order, and a start that fails part-way ends what it had started.
import { startTestChain, type TestChain } from "./chain";
import type { DbKind } from "./db";
import { FaultProxy } from "./fault-proxy";
import { prepareServerDatabase, type RunningServer, startServer } from "./server";

/** The gas keys' balance watch: a call every server makes on its own timer, no request's. */
export const BALANCE_WATCH_METHOD = "eth_getBalance";

export interface ProxiedChainServer {
  chain: TestChain;
  /** Between the server and the chain. */
  proxy: FaultProxy;
  server: RunningServer;
  stop(): Promise<void>;
}

/** Starts the four on a database of `kind`; `env` adds to the server's environment. */
export async function startProxiedChainServer(
  kind: DbKind,
  env: Record<string, string> = {},
): Promise<ProxiedChainServer> {
  const stops: (() => Promise<void>)[] = [];
  // Last started, first stopped; each once.
  const stop = async () => {
    while (stops.length > 0) await stops.pop()!();
  };
  try {
    const chain = await startTestChain();
    stops.push(() => chain.stop());
    const proxy = await FaultProxy.start(chain.rpcUrl);
    stops.push(() => proxy.close());
    const database = await prepareServerDatabase(kind);
    stops.push(() => database.cleanup());
    const server = await startServer({ ...database.env, ...env, CHAIN_RPC_URL: proxy.url });
    stops.push(() => server.stop());
    return { chain, proxy, server, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
