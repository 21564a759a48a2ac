// The dev faucet: mints test USDC on the local chain (POST /api/dev/faucet). On any other
// network it does not exist (404): see dev/hooks.ts.
import type { Address } from "viem";
import { z } from "zod";
import { DomainError } from "@/lib/platform/errors";
import { getSettlementNetwork } from "@/lib/payments/chain/network";
import { usdcToAtomic } from "@/lib/shared/money";
import { addressSchema, usdcAmount } from "@/lib/shared/schemas/common";
import { mintTestUsdc } from "./local-chain";

/** Most the faucet mints per call (USDC). */
export const FAUCET_MAX_USDC = 10_000;

export const faucetSchema = z.object({
  address: addressSchema,
  amountUsdc: usdcAmount("amountUsdc", FAUCET_MAX_USDC),
});

export async function requestTestUsdc(input: { address: Address; amountUsdc: number }) {
  const network = getSettlementNetwork();
  try {
    const txHash = await mintTestUsdc(
      network.rpcUrl,
      input.address,
      usdcToAtomic(input.amountUsdc),
      network.asset,
    );
    return { txHash };
  } catch (error) {
    console.error(
      `Faucet: minting failed: ${error instanceof Error ? error.message.split("\n")[0] : error}`,
    );
    throw new DomainError(
      "unavailable",
      `the local chain at ${network.rpcUrl} is not answering; start it with npm run chain`,
    );
  }
}
