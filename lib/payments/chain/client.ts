// One viem public client per process for the configured settlement network (receipts,
// authorizationState, logs).
import { createPublicClient, http, type PublicClient } from "viem";
import { getSettlementNetwork, type SettlementNetwork } from "./network";
import { timedRpcFetch } from "@/lib/platform/server-timing";

export function createChainClient(
  settlement: Pick<SettlementNetwork, "name" | "chain" | "rpcUrl">,
): PublicClient {
  return createPublicClient({
    chain: settlement.chain,
    transport: http(settlement.rpcUrl, { retryCount: 1, timeout: 15_000, fetchFn: timedRpcFetch }),
    // ganache mines instantly; Base makes a block every 2 s.
    pollingInterval: settlement.name === "local" ? 100 : 1_000,
  });
}

export function getChainClient(): PublicClient {
  const cache = globalThis as typeof globalThis & { __settlementChainClient?: PublicClient };
  cache.__settlementChainClient ??= createChainClient(getSettlementNetwork());
  return cache.__settlementChainClient;
}
