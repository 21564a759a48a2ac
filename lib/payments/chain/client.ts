// One viem public client per process for the configured settlement network (receipts,
// authorizationState, logs).
import { createPublicClient, http, type PublicClient } from "viem";
import { getSettlementNetwork, type SettlementNetwork } from "./network";
import { timedRpcFetch } from "@/lib/platform/server-timing";

/**
 * An RPC call with no answer in this long fails (and is tried once more): a chain cut off by
 * the network costs a request at most about 20 s, then its 503 `chain_unavailable`, never the
 * whole request timeout. Our calls are small (a block, a receipt, logs over 1,000 blocks).
 */
export const RPC_TIMEOUT_MS = 10_000;

export function createChainClient(
  settlement: Pick<SettlementNetwork, "name" | "chain" | "rpcUrl">,
): PublicClient {
  return createPublicClient({
    chain: settlement.chain,
    transport: http(settlement.rpcUrl, {
      retryCount: 1,
      timeout: RPC_TIMEOUT_MS,
      fetchFn: timedRpcFetch,
    }),
    // ganache mines instantly; Base makes a block every 2 s.
    pollingInterval: settlement.name === "local" ? 100 : 1_000,
  });
}

export function getChainClient(): PublicClient {
  const cache = globalThis as typeof globalThis & { __settlementChainClient?: PublicClient };
  cache.__settlementChainClient ??= createChainClient(getSettlementNetwork());
  return cache.__settlementChainClient;
}
