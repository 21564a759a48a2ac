// The browser's wagmi configuration: one chain (the local test chain or Base, whichever the
// server settles on), injected wallets (EIP-6963) always, WalletConnect wallets only when a
// project id is configured. No mainnet: nothing resolves ENS or balances on page load.
import { connectorsForWallets, type WalletList } from "@rainbow-me/rainbowkit";
import {
  injectedWallet,
  metaMaskWallet,
  rainbowWallet,
  walletConnectWallet,
} from "@rainbow-me/rainbowkit/wallets";
import { type Chain, defineChain } from "viem";
import { base } from "viem/chains";
import { type Config, createConfig, http } from "wagmi";

export const APP_NAME = "Agent Marketplace";

/** The chain facts the server hands to the browser (see lib/payments/public-config.ts). */
export interface WalletChainSettings {
  chainId: number;
  rpcUrl: string;
}

const LOCAL_CHAIN_ID = 31337;

function chainFor(settings: WalletChainSettings): Chain {
  // NEXT_PUBLIC_CHAIN_RPC_URL lets the browser reach the local chain at another address than
  // the server does (a container, a tunnel); by default both use the server's CHAIN_RPC_URL.
  const rpcUrl =
    (settings.chainId === LOCAL_CHAIN_ID ? process.env.NEXT_PUBLIC_CHAIN_RPC_URL : undefined) ||
    settings.rpcUrl;
  if (settings.chainId === base.id) {
    return { ...base, rpcUrls: { default: { http: [rpcUrl] } } };
  }
  return defineChain({
    id: settings.chainId,
    name: settings.chainId === LOCAL_CHAIN_ID ? "Local test chain" : `Chain ${settings.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    testnet: true,
  });
}

function walletList(): WalletList {
  const groups: WalletList = [{ groupName: "Browser wallets", wallets: [injectedWallet] }];
  if (process.env.NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID) {
    groups.push({
      groupName: "More wallets",
      wallets: [metaMaskWallet, rainbowWallet, walletConnectWallet],
    });
  }
  return groups;
}

/** Only used when the server could not describe its payment network (a configuration error). */
const FALLBACK_CHAIN: WalletChainSettings =
  process.env.NEXT_PUBLIC_SETTLEMENT_NETWORK === "base"
    ? { chainId: base.id, rpcUrl: "https://mainnet.base.org" }
    : {
        chainId: LOCAL_CHAIN_ID,
        rpcUrl: process.env.NEXT_PUBLIC_CHAIN_RPC_URL || "http://127.0.0.1:8545",
      };

/**
 * The page's one wagmi config. The wallet tree (wallet-tree.tsx) calls this once and keeps
 * the result for its lifetime; nothing else creates one.
 */
export function createWagmiConfig(settings: WalletChainSettings | null): Config {
  const chain = chainFor(settings ?? FALLBACK_CHAIN);
  return createConfig({
    chains: [chain],
    connectors: connectorsForWallets(walletList(), {
      appName: APP_NAME,
      projectId: process.env.NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID || "unused",
    }),
    transports: { [chain.id]: http(chain.rpcUrls.default.http[0], { retryCount: 1 }) },
    multiInjectedProviderDiscovery: true,
    ssr: false,
  });
}
