// A public client on the local chain that counts the JSON-RPC calls it makes, by method: the
// tests that pin how many chain calls a send or a receipt wait costs.
import { createPublicClient, http } from "viem";
import { localChain } from "@/dev/local-chain";

export function countingClient(rpcUrl: string, pollingInterval: number) {
  const calls: Record<string, number> = {};
  const client = createPublicClient({
    chain: localChain(rpcUrl),
    transport: http(rpcUrl, {
      retryCount: 0,
      fetchFn: async (input, init) => {
        const method = (JSON.parse(String(init?.body)) as { method: string }).method;
        calls[method] = (calls[method] ?? 0) + 1;
        return fetch(input, init);
      },
    }),
    pollingInterval,
  });
  return { client, calls };
}
