// The local development and test chain: Hardhat's node (dev/hardhat-node.ts, Cancun) with the
// ten accounts of ganache's deterministic wallet (kept from the chain's ganache days, so every
// address and LOCAL_TOKEN_ADDRESS stayed), chain id 31337, and our own EIP-3009 token (TestUSDC).
//
// Development and test machinery only (the dev faucet, scripts, tests): production payment code
// knows the local network only through lib/payments/local-network.ts. No node import here: this
// module talks JSON-RPC; scripts/chain.ts and tests/helpers/chain.ts start the node and then call
// deployLocalChain().
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  getContractAddress,
  keccak256,
  toBytes,
  toHex,
  http,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  DEFAULT_LOCAL_RPC_URL,
  LOCAL_CHAIN_ID,
  LOCAL_TOKEN_ADDRESS,
  localChain,
  MULTICALL3_ADDRESS,
  PUBLIC_TEST_ADDRESSES,
} from "@/lib/payments/chain/local-network";
import { multicall3DeployedBytecode, testUsdcAbi, testUsdcBytecode } from "./contracts";
import { localEscrowCode } from "./escrow";

export {
  DEFAULT_LOCAL_RPC_URL,
  LOCAL_CHAIN_ID,
  LOCAL_NETWORK,
  LOCAL_TOKEN_ADDRESS,
  LOCAL_TOKEN_EIP712_DOMAIN,
  localChain,
} from "@/lib/payments/chain/local-network";

/**
 * ganache's `--wallet.deterministic` mnemonic (public knowledge: test funds only). The local
 * chain was ganache until it moved to Hardhat; its node is given these accounts' keys.
 */
export const GANACHE_MNEMONIC =
  "myth like bonus scare over problem client lizard pioneer submit female collect";

/**
 * The private keys of ganache's deterministic accounts 0..9 (derived from GANACHE_MNEMONIC,
 * m/44'/60'/0'/0/i). Well known: never use them on a real network.
 */
export const GANACHE_PRIVATE_KEYS = [
  "0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d",
  "0x6cbed15c793ce57650b9877cf6fa156fbef513c4e6134f022a85b1ffdd59b2a1",
  "0x6370fd033278c143179d81c5526140625662b8daa446c22ee2d73db3707e620c",
  "0x646f1ce2fdad0e6deeeb5c7e8e5543bdde65e86029e2fd9fc169899c440a7913",
  "0xadd53f9a7e588d003326d1cbf9e4a43c061aadd9bc938c843a79e7b4fd2ad743",
  "0x395df67f0c2d2d9fe1ad08d1bc8b6627011959b79c53d7dd6a3536a33ab8a4fd",
  "0xe485d098507f54e7733a205420dfddbe58db035fa577fc294ebd14db90767a52",
  "0xa453611d9419d0e56f499079478fd72c37b251a94bfde4d19872c44cf65386e3",
  "0x829e924fdf021ba3dbbc4225edfece9aca04b929d6e75613329ca6f1d31c0bb4",
  "0xb0057716d5917badaf911b193b12b910811c1497b5bada8d7711f758981c3773",
] as const satisfies readonly Hex[];

/** Their addresses, same order (production code refuses them as a gas key on real networks). */
export const GANACHE_ADDRESSES = PUBLIC_TEST_ADDRESSES;

/** Account roles on the local chain. */
export const DEPLOYER_INDEX = 0; // deploys TestUSDC (nonce 0), owns it, mints (faucet)
export const FACILITATOR_INDEX = 1; // the self-hosted facilitator: pays gas for settlements
export const DEMO_ACCOUNT_INDEXES = [2, 3, 4, 5, 6, 7, 8, 9] as const; // posters and agents

export const DEPLOYER_PRIVATE_KEY = GANACHE_PRIVATE_KEYS[DEPLOYER_INDEX];
export const DEPLOYER_ADDRESS = GANACHE_ADDRESSES[DEPLOYER_INDEX];
export const LOCAL_FACILITATOR_PRIVATE_KEY = GANACHE_PRIVATE_KEYS[FACILITATOR_INDEX];
export const LOCAL_FACILITATOR_ADDRESS = GANACHE_ADDRESSES[FACILITATOR_INDEX];
/**
 * What a server or facilitator process needs to settle on the local chain with its
 * facilitator in process (the production code has no default key): npm run dev, the tests,
 * the benchmark and the browser suite start theirs with it.
 */
/**
 * The escrow operator's key on the local chain (protected payments): a key of its own, not one
 * of the ten accounts, so that nothing else ever sends from it (its transactions go through
 * one ordered queue per process). keccak256("agent-marketplace local escrow operator"); given
 * ETH for gas when the escrow stand-in is installed.
 */
export const LOCAL_ESCROW_OPERATOR_PRIVATE_KEY: Hex = keccak256(
  toBytes("agent-marketplace local escrow operator"),
);
export const LOCAL_ESCROW_OPERATOR_ADDRESS: Address = privateKeyToAccount(
  LOCAL_ESCROW_OPERATOR_PRIVATE_KEY,
).address;

export const LOCAL_FACILITATOR_ENV = {
  SETTLEMENT_NETWORK: "local",
  FACILITATOR_PRIVATE_KEY: GANACHE_PRIVATE_KEYS[FACILITATOR_INDEX],
  ESCROW_OPERATOR_PRIVATE_KEY: LOCAL_ESCROW_OPERATOR_PRIVATE_KEY,
} as const;

export const DEMO_ACCOUNTS = DEMO_ACCOUNT_INDEXES.map((index) => ({
  index,
  address: GANACHE_ADDRESSES[index],
  privateKey: GANACHE_PRIVATE_KEYS[index],
}));

/** Where the deployer's first contract (nonce 0) lands: LOCAL_TOKEN_ADDRESS (a test checks). */
export const DEPLOYED_TOKEN_ADDRESS: Address = getContractAddress({
  from: DEPLOYER_ADDRESS,
  nonce: 0n,
});

export const LOCAL_TOKEN_SYMBOL = "tUSDC";
export const LOCAL_TOKEN_DECIMALS = 6;

/** Test USDC each demo account receives at deployment (atomic units: 10,000 USDC). */
export const DEMO_FUNDING_ATOMIC = 10_000_000_000n;
/** Most the dev faucet mints per call (atomic units: 10,000 USDC). */
export const FAUCET_MAX_ATOMIC = 10_000_000_000n;

export interface DeployResult {
  /** false when the token was already there (nothing was sent). */
  deployed: boolean;
  tokenAddress: Address;
  /** Demo accounts funded by this call (empty when `deployed` is false). */
  funded: Address[];
}

/**
 * Idempotent: when TestUSDC's code is already at LOCAL_TOKEN_ADDRESS, only makes sure
 * Multicall3 and the escrow stand-in are installed. Otherwise deploys TestUSDC from account 0
 * at nonce 0, installs Multicall3 at its canonical address and our Commerce Payments escrow
 * stand-in at Base's v1.1.0 addresses (`hardhat_setCode`, dev/escrow.ts: no transactions), and
 * mints DEMO_FUNDING_ATOMIC to each demo account. Needs a Hardhat node (chain id 31337).
 */
export async function deployLocalChain(
  rpcUrl: string = DEFAULT_LOCAL_RPC_URL,
): Promise<DeployResult> {
  const { publicClient, walletClient } = await localClients(rpcUrl);

  const existing = await publicClient.getCode({ address: LOCAL_TOKEN_ADDRESS });
  if (existing && existing !== "0x") {
    await ensureMulticall3(rpcUrl, publicClient);
    await ensureEscrow(rpcUrl, publicClient);
    return { deployed: false, tokenAddress: LOCAL_TOKEN_ADDRESS, funded: [] };
  }

  const nonce = await publicClient.getTransactionCount({
    address: DEPLOYER_ADDRESS,
    blockTag: "pending",
  });
  if (nonce !== 0) {
    throw new Error(
      `The local chain at ${rpcUrl} has no TestUSDC at ${LOCAL_TOKEN_ADDRESS} but the deployer ` +
        `(${DEPLOYER_ADDRESS}) has already sent ${nonce} transaction(s), so the token can no ` +
        `longer be deployed at its fixed address. Reset the chain (delete .data/chain).`,
    );
  }

  const deployHash = await walletClient.deployContract({
    abi: testUsdcAbi,
    bytecode: testUsdcBytecode,
    nonce: 0,
  });
  const deployReceipt = await publicClient.waitForTransactionReceipt({ hash: deployHash });
  if (
    deployReceipt.status !== "success" ||
    !deployReceipt.contractAddress ||
    getAddress(deployReceipt.contractAddress) !== LOCAL_TOKEN_ADDRESS
  ) {
    throw new Error(`TestUSDC deployment failed (tx ${deployHash})`);
  }

  await ensureMulticall3(rpcUrl, publicClient);
  await ensureEscrow(rpcUrl, publicClient);

  // Explicit nonces: all mints go out at once, then we wait for every receipt.
  const funded = DEMO_ACCOUNTS.map((account) => account.address);
  const hashes: Hex[] = [];
  for (const [i, address] of funded.entries()) {
    hashes.push(
      await walletClient.writeContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [address, DEMO_FUNDING_ATOMIC],
        nonce: 1 + i,
      }),
    );
  }
  for (const hash of hashes) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`Funding transaction ${hash} failed`);
  }
  return { deployed: true, tokenAddress: LOCAL_TOKEN_ADDRESS, funded };
}

/** The gas a mint is sent with (mintTestUsdc): more than any mint of the test token takes. */
const MINT_GAS = 100_000n;

// One queue per RPC URL: concurrent faucet calls must not pick the same deployer nonce.
const mintQueues = new Map<string, Promise<unknown>>();

/**
 * Mints `amountAtomic` test USDC to `to` from the deployer (the token owner) and waits for
 * the receipt. For the dev faucet: refuses anything but the local chain (id 31337). The
 * caller enforces FAUCET_MAX_ATOMIC.
 */
export async function mintTestUsdc(
  rpcUrl: string,
  to: Address,
  amountAtomic: bigint,
  tokenAddress: Address = LOCAL_TOKEN_ADDRESS,
): Promise<Hex> {
  if (amountAtomic <= 0n) throw new RangeError("mint amount must be positive");
  const recipient = getAddress(to);
  const previous = mintQueues.get(rpcUrl) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      const { publicClient, walletClient } = await localClients(rpcUrl);
      const code = await publicClient.getCode({ address: tokenAddress });
      if (!code || code === "0x") {
        throw new Error(
          `No test USDC contract at ${tokenAddress} on ${rpcUrl}: start the chain (npm run chain).`,
        );
      }
      const nonce = await publicClient.getTransactionCount({
        address: DEPLOYER_ADDRESS,
        blockTag: "pending",
      });
      const hash = await walletClient.writeContract({
        address: tokenAddress,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [recipient, amountAtomic],
        nonce,
        // Not estimated: what a mint costs depends on the recipient's balance when it is mined
        // (a slot set from zero costs 20,000 gas, one already set 2,900), and a payment of the
        // recipient's can empty it in between; estimated while it held test USDC, a mint ran
        // out of gas (34,049) once that payment landed first. Any mint fits this (about 51,000).
        gas: MINT_GAS,
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`Mint transaction ${hash} failed`);
      return hash;
    });
  mintQueues.set(rpcUrl, run);
  try {
    return await run;
  } finally {
    if (mintQueues.get(rpcUrl) === run) mintQueues.delete(rpcUrl);
  }
}

async function localClients(rpcUrl: string) {
  const chain = localChain(rpcUrl);
  const transport = http(rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 100 });
  const chainId = await publicClient.getChainId();
  if (chainId !== LOCAL_CHAIN_ID) {
    throw new Error(`${rpcUrl} is chain ${chainId}, not the local chain (${LOCAL_CHAIN_ID})`);
  }
  const walletClient = createWalletClient({
    account: privateKeyToAccount(DEPLOYER_PRIVATE_KEY),
    chain,
    transport,
    pollingInterval: 100,
  });
  return { publicClient, walletClient };
}

async function ensureMulticall3(
  rpcUrl: string,
  publicClient: Awaited<ReturnType<typeof localClients>>["publicClient"],
): Promise<void> {
  const code = await publicClient.getCode({ address: MULTICALL3_ADDRESS });
  if (code && code !== "0x") return;
  await setCode(rpcUrl, publicClient, MULTICALL3_ADDRESS, multicall3DeployedBytecode);
}

async function ensureEscrow(
  rpcUrl: string,
  publicClient: Awaited<ReturnType<typeof localClients>>["publicClient"],
): Promise<void> {
  for (const { address, code } of localEscrowCode()) {
    const current = await publicClient.getCode({ address });
    if (current?.toLowerCase() !== code.toLowerCase()) {
      await setCode(rpcUrl, publicClient, address, code);
    }
  }
  // The operator pays the gas of authorize, capture and void.
  if ((await publicClient.getBalance({ address: LOCAL_ESCROW_OPERATOR_ADDRESS })) === 0n) {
    await publicClient.request<{
      Method: "hardhat_setBalance";
      Parameters: [Address, Hex];
      ReturnType: boolean | null;
    }>({
      method: "hardhat_setBalance",
      params: [LOCAL_ESCROW_OPERATOR_ADDRESS, toHex(10_000n * 10n ** 18n)],
    });
  }
}

/** Installs runtime code at an address (Hardhat's `hardhat_setCode`). */
async function setCode(
  rpcUrl: string,
  publicClient: Awaited<ReturnType<typeof localClients>>["publicClient"],
  address: Address,
  code: Hex,
): Promise<void> {
  try {
    await publicClient.request<{
      Method: "hardhat_setCode";
      Parameters: [Address, Hex];
      ReturnType: boolean | null;
    }>({ method: "hardhat_setCode", params: [address, code] });
  } catch (error) {
    throw new Error(
      `hardhat_setCode failed on ${rpcUrl} (is it the local Hardhat node?): ${(error as Error).message}`,
    );
  }
}
