// The local development and test chain as the production code sees it: an id, a token address
// and its EIP-712 domain, nothing more. Keys, deployment and minting live in dev/local-chain.ts
// (never imported here); dev/local-chain.test.ts checks that its deployment lands where these
// constants say.
import { type Address, type Chain, defineChain } from "viem";
import { USDC_BY_NETWORK } from "@/lib/shared/money";
import { COMMERCE_PAYMENTS_V1_1 } from "./escrow-deployments";

export const LOCAL_CHAIN_ID = 31337;
export const LOCAL_NETWORK = "eip155:31337" as const;
export const DEFAULT_LOCAL_RPC_URL = "http://127.0.0.1:8545";

/** TestUSDC on the local chain: the deployer's (account 0) first contract. */
export const LOCAL_TOKEN_ADDRESS: Address = USDC_BY_NETWORK[LOCAL_NETWORK];
/** TestUSDC's EIP-712 domain: deliberately not Circle's "USD Coin". */
export const LOCAL_TOKEN_EIP712_DOMAIN = { name: "USD Coin Local", version: "2" } as const;

/** Canonical Multicall3 address (the same on every EVM chain; installed by hand locally). */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

/**
 * Our stand-in of the Commerce Payments escrow (contracts/escrow: AuthCaptureEscrow and its
 * collectors, the v1.1.0 interface) on the local chain. Installed at the very addresses of
 * Base's v1.1.0 deployment (lib/payments/escrow-deployments.ts), as Multicall3 is: x402's
 * `auth-capture` clients sign for those addresses (the collector is the authorization's payee,
 * the escrow's address is in its nonce), so the same signatures work here. dev/escrow.test.ts
 * checks the installation lands here.
 */
export const LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS: Address = COMMERCE_PAYMENTS_V1_1.authCaptureEscrow;
export const LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS: Address =
  COMMERCE_PAYMENTS_V1_1.erc3009PaymentCollector;
export const LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS: Address =
  COMMERCE_PAYMENTS_V1_1.operatorRefundCollector;

/**
 * Addresses whose private keys are public knowledge (ganache's deterministic wallet, accounts
 * 0-9): a gas key with one of them is refused on a real network.
 */
export const PUBLIC_TEST_ADDRESSES = [
  "0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1",
  "0xFFcf8FDEE72ac11b5c542428B35EEF5769C409f0",
  "0x22d491Bde2303f2f43325b2108D26f1eAbA1e32b",
  "0xE11BA2b4D45Eaed5996Cd0823791E0C93114882d",
  "0xd03ea8624C8C5987235048901fB614fDcA89b117",
  "0x95cED938F7991cd0dFcb48F0a06a40FA1aF46EBC",
  "0x3E5e9111Ae8eB78Fe1CC3bb8915d5D461F3Ef9A9",
  "0x28a8746e75304c0780E011BEd21C72cD78cd535E",
  "0xACa94ef8bD5ffEE41947b4585a84BdA5a3d3DA6E",
  "0x1dF62f291b2E969fB0849d99D9Ce41e2F137006e",
] as const satisfies readonly Address[];

/** The viem chain of the local network, talking to `rpcUrl`. */
export function localChain(rpcUrl: string = DEFAULT_LOCAL_RPC_URL): Chain {
  return defineChain({
    id: LOCAL_CHAIN_ID,
    name: "Local (Hardhat)",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
    testnet: true,
  });
}
