// What the browser needs to know about payments: network, chain, token, whether the dev
// faucet exists and whether protected payments (escrow) are offered. Read at request time on
// the server and passed to client components as props, so one build works against any chain
// (the test chain's port is only known at run time).
import { getConfig } from "@/lib/platform/config";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { getEscrowSettings } from "../escrow/settings";
import { browserRpcUrl } from "./browser-rpc";
import { resolveSettlementNetwork } from "./network";

export type { PublicPaymentConfig };

export function getPublicPaymentConfig(): PublicPaymentConfig {
  const settlement = resolveSettlementNetwork(getConfig());
  const local = settlement.name === "local";
  // Null when protected payments are off; a bad escrow configuration stopped the start
  // (lib/api/startup.ts) and never reaches a page.
  const escrow = getEscrowSettings();
  return {
    network: settlement.network,
    chainId: settlement.chain.id,
    asset: settlement.asset,
    tokenName: settlement.eip712Domain.name,
    tokenVersion: settlement.eip712Domain.version,
    faucetEnabled: local,
    rpcUrl: browserRpcUrl(getConfig()),
    protectedPayments: escrow !== null,
    escrow: escrow && {
      address: escrow.escrow,
      operator: escrow.operator,
      reviewSeconds: escrow.reviewSeconds,
      disputeSeconds: escrow.disputeSeconds,
    },
  };
}
