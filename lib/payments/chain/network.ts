// Where settlements happen: the local chain (development, tests) or Base mainnet.
// `resolveSettlementNetwork` is pure (config in, description out) so it is unit-tested; the
// rest of the code calls `getSettlementNetwork()`.
import "server-only";
import { getAddress, type Address, type Chain, type Hex } from "viem";
import { base } from "viem/chains";
import { ConfigError, getConfig, type Env } from "@/lib/platform/config";
import { usdcToAtomic, USDC_BY_NETWORK, USDC_DECIMALS } from "@/lib/shared/money";
import { privateKeyToAccount } from "viem/accounts";
import {
  DEFAULT_LOCAL_RPC_URL,
  LOCAL_NETWORK,
  LOCAL_TOKEN_ADDRESS,
  LOCAL_TOKEN_EIP712_DOMAIN,
  localChain,
  PUBLIC_TEST_ADDRESSES,
} from "./local-network";
import { BASE_PUBLIC_RPC_URL } from "./browser-rpc";

export const BASE_NETWORK = "eip155:8453" as const;
/** Circle's USDC on Base mainnet. */
export const BASE_USDC_ADDRESS: Address = USDC_BY_NETWORK[BASE_NETWORK];
export const BASE_USDC_EIP712_DOMAIN = { name: "USD Coin", version: "2" } as const;
/** Used for reads when BASE_RPC_URL is not set (rate-limited public endpoint). */
/** Coinbase's hosted facilitator (what @coinbase/x402's createFacilitatorConfig points to). */
export const CDP_FACILITATOR_URL = "https://api.cdp.coinbase.com/platform/v2/x402";

export type SettlementFacilitator =
  | {
      kind: "self-hosted";
      /** The gas keys, one ordered queue each (FACILITATOR_PRIVATE_KEYS or _KEY). */
      privateKeys: Hex[];
      confirmationTimeoutMs: number;
      /** Each key's balance read every `intervalMs` (0: never), a warning below `minimumWei`. */
      balance: { minimumWei: bigint; intervalMs: number };
    }
  | { kind: "http"; url: string; cdpAuth: boolean; secret?: string };

export interface SettlementNetwork {
  name: "local" | "base";
  /** CAIP-2 id, as in x402 PaymentRequirements.network. */
  network: typeof LOCAL_NETWORK | typeof BASE_NETWORK;
  chain: Chain;
  rpcUrl: string;
  /** The USDC token (checksummed). */
  asset: Address;
  /** The token's EIP-712 domain: PaymentRequirements.extra { name, version }. */
  eip712Domain: { name: string; version: string };
  decimals: 6;
  /**
   * Blocks behind the head at which the chain's state counts as final for freeing a
   * settlement slot (a reorg shallower than this cannot bring back a transfer).
   */
  finalityBlocks: number;
  facilitator: SettlementFacilitator;
}

type NetworkEnv = Pick<
  Env,
  | "SETTLEMENT_NETWORK"
  | "CHAIN_RPC_URL"
  | "BASE_RPC_URL"
  | "X402_FACILITATOR_URL"
  | "CDP_API_KEY_ID"
  | "CDP_API_KEY_SECRET"
  | "FACILITATOR_PRIVATE_KEY"
  | "FACILITATOR_PRIVATE_KEYS"
  | "FACILITATOR_MIN_BALANCE_ETH"
  | "FACILITATOR_BALANCE_CHECK_SECONDS"
  | "FACILITATOR_SECRET"
  | "SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS"
  | "LOCAL_TOKEN_ADDRESS"
  | "ESCROW_OPERATOR_PRIVATE_KEY"
>;

/**
 * Local: RPC CHAIN_RPC_URL (default http://127.0.0.1:8545), TestUSDC at its deterministic
 * address (or LOCAL_TOKEN_ADDRESS), facilitator in-process with FACILITATOR_PRIVATE_KEY or
 * FACILITATOR_PRIVATE_KEYS, or over HTTP when X402_FACILITATOR_URL is set.
 *
 * Base: USDC, RPC BASE_RPC_URL, and a facilitator, first match wins:
 *   X402_FACILITATOR_URL (CDP auth headers when both CDP keys are set);
 *   CDP_API_KEY_ID + CDP_API_KEY_SECRET alone: Coinbase's hosted facilitator;
 *   FACILITATOR_PRIVATE_KEY(S) + BASE_RPC_URL: in-process facilitator paying gas on Base.
 * Throws ConfigError with what is missing.
 */
export function resolveSettlementNetwork(env: NetworkEnv): SettlementNetwork {
  const hasCdpId = env.CDP_API_KEY_ID !== undefined;
  const hasCdpSecret = env.CDP_API_KEY_SECRET !== undefined;
  if (hasCdpId !== hasCdpSecret) {
    throw new ConfigError(
      "CDP_API_KEY_ID and CDP_API_KEY_SECRET must be set together (or neither).",
    );
  }
  const cdpAuth = hasCdpId && hasCdpSecret;

  if (env.SETTLEMENT_NETWORK === "local") {
    const rpcUrl = env.CHAIN_RPC_URL ?? DEFAULT_LOCAL_RPC_URL;
    return {
      name: "local",
      network: LOCAL_NETWORK,
      chain: localChain(rpcUrl),
      rpcUrl,
      asset: getAddress(env.LOCAL_TOKEN_ADDRESS ?? LOCAL_TOKEN_ADDRESS),
      eip712Domain: { ...LOCAL_TOKEN_EIP712_DOMAIN },
      decimals: USDC_DECIMALS as 6,
      finalityBlocks: 0,
      facilitator: env.X402_FACILITATOR_URL
        ? httpFacilitator(env, env.X402_FACILITATOR_URL, cdpAuth)
        : selfHosted(env, requiredKeys(env, "local"), 20),
    };
  }

  const facilitator = resolveBaseFacilitator(env, cdpAuth);
  const rpcUrl = env.BASE_RPC_URL ?? BASE_PUBLIC_RPC_URL;
  return {
    name: "base",
    network: BASE_NETWORK,
    chain: { ...base, rpcUrls: { default: { http: [rpcUrl] } } },
    rpcUrl,
    asset: BASE_USDC_ADDRESS,
    eip712Domain: { ...BASE_USDC_EIP712_DOMAIN },
    decimals: USDC_DECIMALS as 6,
    finalityBlocks: 5,
    facilitator,
  };
}

/** The self-hosted facilitator's gas keys, whichever of the two variables gives them. */
export function facilitatorKeys(env: NetworkEnv): Hex[] {
  if (env.FACILITATOR_PRIVATE_KEY && env.FACILITATOR_PRIVATE_KEYS) {
    throw new ConfigError(
      "FACILITATOR_PRIVATE_KEY and FACILITATOR_PRIVATE_KEYS are both set: give the keys in " +
        "FACILITATOR_PRIVATE_KEYS only (comma-separated)",
    );
  }
  const keys = (env.FACILITATOR_PRIVATE_KEYS ??
    (env.FACILITATOR_PRIVATE_KEY ? [env.FACILITATOR_PRIVATE_KEY] : [])) as Hex[];
  const escrow = env.ESCROW_OPERATOR_PRIVATE_KEY?.toLowerCase();
  if (escrow && keys.some((key) => key.toLowerCase() === escrow)) {
    throw new ConfigError(
      "ESCROW_OPERATOR_PRIVATE_KEY is also a facilitator gas key: each key needs its own single " +
        "queue (two would collide on nonces)",
    );
  }
  return keys;
}

/** The self-hosted facilitator's gas keys (npm run dev, npm start and the tests set the local chain's). */
function requiredKeys(env: NetworkEnv, network: "local" | "base"): Hex[] {
  const keys = facilitatorKeys(env);
  if (keys.length === 0) {
    throw new ConfigError(
      `SETTLEMENT_NETWORK=${network} with the facilitator in this process needs FACILITATOR_PRIVATE_KEY ` +
        "or FACILITATOR_PRIVATE_KEYS (their accounts pay the settlements' gas), or " +
        "X402_FACILITATOR_URL for a facilitator service.",
    );
  }
  return keys;
}

function selfHosted(
  env: NetworkEnv,
  privateKeys: Hex[],
  defaultTimeoutSeconds: number,
): SettlementFacilitator {
  return {
    kind: "self-hosted",
    privateKeys,
    confirmationTimeoutMs:
      (env.SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS ?? defaultTimeoutSeconds) * 1000,
    balance: {
      minimumWei: env.FACILITATOR_MIN_BALANCE_ETH,
      intervalMs: env.FACILITATOR_BALANCE_CHECK_SECONDS * 1000,
    },
  };
}

function httpFacilitator(env: NetworkEnv, url: string, cdpAuth: boolean): SettlementFacilitator {
  return {
    kind: "http",
    url,
    cdpAuth,
    ...(env.FACILITATOR_SECRET ? { secret: env.FACILITATOR_SECRET } : {}),
  };
}

function resolveBaseFacilitator(env: NetworkEnv, cdpAuth: boolean): SettlementFacilitator {
  if (env.X402_FACILITATOR_URL) return httpFacilitator(env, env.X402_FACILITATOR_URL, cdpAuth);
  if (cdpAuth) return { kind: "http", url: CDP_FACILITATOR_URL, cdpAuth: true };
  if (facilitatorKeys(env).length > 0) {
    const keys = requiredKeys(env, "base");
    const publicKeys = PUBLIC_TEST_ADDRESSES as readonly string[];
    if (keys.some((key) => publicKeys.includes(privateKeyToAccount(key).address))) {
      throw new ConfigError(
        "FACILITATOR_PRIVATE_KEY is one of ganache's public test keys: refused with SETTLEMENT_NETWORK=base.",
      );
    }
    if (!env.BASE_RPC_URL) {
      throw new ConfigError(
        "SETTLEMENT_NETWORK=base with FACILITATOR_PRIVATE_KEY (self-hosted facilitator) also needs BASE_RPC_URL.",
      );
    }
    return selfHosted(env, keys, 60);
  }
  throw new ConfigError(
    "SETTLEMENT_NETWORK=base needs a facilitator: set X402_FACILITATOR_URL, or CDP_API_KEY_ID and " +
      "CDP_API_KEY_SECRET (Coinbase's facilitator), or BASE_RPC_URL and FACILITATOR_PRIVATE_KEY " +
      "(self-hosted; that account pays the gas).",
  );
}

/** The configured network, resolved once per process. */
export function getSettlementNetwork(): SettlementNetwork {
  const cache = globalThis as typeof globalThis & { __settlementNetwork?: SettlementNetwork };
  cache.__settlementNetwork ??= resolveSettlementNetwork(getConfig());
  return cache.__settlementNetwork;
}

/**
 * How long a request waits for the receipt of a transaction it sent before it answers
 * "pending": SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS as the self-hosted facilitator resolved it,
 * or `otherwiseMs` when an HTTP facilitator settles (the setting is then not ours to read).
 */
export function confirmationTimeoutMs(otherwiseMs: number): number {
  const { facilitator } = getSettlementNetwork();
  return facilitator.kind === "self-hosted" ? facilitator.confirmationTimeoutMs : otherwiseMs;
}

/**
 * A USDC amount as x402 wants it in `accepts[].price` / requirements: atomic units as a decimal
 * string, the token, and its EIP-712 domain in `extra`.
 */
export function toAssetAmount(
  settlement: Pick<SettlementNetwork, "asset" | "eip712Domain">,
  amountUsdc: number,
): { asset: Address; amount: string; extra: { name: string; version: string } } {
  return {
    asset: settlement.asset,
    amount: usdcToAtomic(amountUsdc).toString(),
    extra: { ...settlement.eip712Domain },
  };
}
