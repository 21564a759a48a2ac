"use client";

import { erc20Abi } from "viem";
import { useReadContract } from "wagmi";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";

/**
 * The wallet's USDC balance on the settlement network (atomic units), from the wallet tree's
 * one react-query cache: the dev bar and the pay dialog share it, and paying refreshes both.
 */
export function useUsdcBalance(payment: PublicPaymentConfig, address: `0x${string}` | undefined) {
  return useReadContract({
    address: payment.asset,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: address ? [address] : undefined,
    chainId: payment.chainId,
    query: { enabled: Boolean(address) },
  });
}
