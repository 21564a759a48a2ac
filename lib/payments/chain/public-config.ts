// What the browser needs to know about payments: network, chain, token and whether the dev
// faucet exists. Read at request time on the server and passed to client components as props,
// so one build works against any chain (the test chain's port is only known at run time).
import { getConfig } from "@/lib/platform/config";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { browserRpcUrl } from "./browser-rpc";
import { resolveSettlementNetwork } from "./network";

export type { PublicPaymentConfig };

export function getPublicPaymentConfig(): PublicPaymentConfig {
  const settlement = resolveSettlementNetwork(getConfig());
  const local = settlement.name === "local";
  return {
    network: settlement.network,
    chainId: settlement.chain.id,
    asset: settlement.asset,
    tokenName: settlement.eip712Domain.name,
    tokenVersion: settlement.eip712Domain.version,
    faucetEnabled: local,
    rpcUrl: browserRpcUrl(getConfig()),
  };
}
