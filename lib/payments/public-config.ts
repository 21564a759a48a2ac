// What the browser needs to know about payments: network, chain, token and whether the dev
// faucet exists. Read at request time on the server and passed to client components as props,
// so one build works against any chain (the test chain's port is only known at run time).
import { getConfig } from "@/lib/config";
import { BASE_PUBLIC_RPC_URL, resolveSettlementNetwork } from "./network";

export interface PublicPaymentConfig {
  network: "eip155:31337" | "eip155:8453";
  chainId: number;
  /** The USDC token address (checksummed). */
  asset: `0x${string}`;
  /** The token's EIP-712 domain name and version. */
  tokenName: string;
  tokenVersion: string;
  /** POST /api/dev/faucet exists (local chain only). */
  faucetEnabled: boolean;
  /** A JSON-RPC URL the browser may read from; never a private (keyed) RPC URL. */
  rpcUrl: string;
}

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
    // On Base the server's BASE_RPC_URL may carry an API key: the browser gets the public one.
    rpcUrl: local ? settlement.rpcUrl : BASE_PUBLIC_RPC_URL,
  };
}
