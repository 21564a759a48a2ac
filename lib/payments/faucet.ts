import type { Address } from "viem";
import { DomainError, notFound } from "@/lib/errors";
import { mintTestUsdc } from "./local-chain";
import { usdcToAtomic } from "./money";
import { getSettlementNetwork } from "./network";

/** Mints test USDC on the local chain; on any other network the faucet does not exist. */
export async function requestTestUsdc(input: { address: Address; amountUsdc: number }) {
  const network = getSettlementNetwork();
  if (network.name !== "local") throw notFound("no such API endpoint");
  try {
    const txHash = await mintTestUsdc(
      network.rpcUrl,
      input.address,
      usdcToAtomic(input.amountUsdc),
      network.asset,
    );
    return { txHash };
  } catch (error) {
    console.error("Faucet: minting failed", error);
    throw new DomainError(
      "unavailable",
      `the local chain at ${network.rpcUrl} is not answering; start it with npm run chain`,
    );
  }
}
