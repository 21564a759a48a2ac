// The JSON-RPC URLs the browser's wallet code may call: the page hands the first to wagmi
// (lib/payments/public-config.ts) and the app server's Content-Security-Policy allows exactly
// these (server/security-headers.ts). No `server-only` marker: the app server reads it before
// Next.js loads.
import type { Env } from "@/lib/platform/config";
import { DEFAULT_LOCAL_RPC_URL } from "./local-network";

/** Base's public RPC: the browser never gets BASE_RPC_URL, which may carry an API key. */
export const BASE_PUBLIC_RPC_URL = "https://mainnet.base.org";

export function browserRpcUrl(config: Pick<Env, "SETTLEMENT_NETWORK" | "CHAIN_RPC_URL">): string {
  return config.SETTLEMENT_NETWORK === "base"
    ? BASE_PUBLIC_RPC_URL
    : (config.CHAIN_RPC_URL ?? DEFAULT_LOCAL_RPC_URL);
}

/**
 * Every RPC URL a page may call: the one above, and on the local chain
 * NEXT_PUBLIC_CHAIN_RPC_URL, which lets the browser reach the chain at another address than
 * the server does (components/wallet/config.ts).
 */
export function browserRpcUrls(
  config: Pick<Env, "SETTLEMENT_NETWORK" | "CHAIN_RPC_URL">,
  publicChainRpcUrl: string | undefined = process.env.NEXT_PUBLIC_CHAIN_RPC_URL,
): string[] {
  const urls = [browserRpcUrl(config)];
  if (config.SETTLEMENT_NETWORK !== "base" && publicChainRpcUrl) urls.push(publicChainRpcUrl);
  return urls;
}
