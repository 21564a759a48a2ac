// An in-memory local chain for integration tests (vitest), Playwright and the benchmark: Hardhat's
// node in this process (dev/hardhat-node.ts) on a free port of 127.0.0.1, chain id 31337, the
// ten known accounts, TestUSDC deployed and the demo accounts funded exactly as `npm run chain`
// does. Fault injection goes through the named methods below, not raw JSON-RPC method names.
import type { Address, Hex } from "viem";
import { startLocalNode } from "@/dev/hardhat-node";
import { deployLocalChain } from "@/dev/local-chain";

export interface TestChain {
  rpcUrl: string;
  port: number;
  /** A raw JSON-RPC call, for what the named methods below do not cover. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Stops mining: sent transactions wait in the pool (their hashes are known, no receipts). */
  pauseMining(): Promise<void>;
  /** Mines again, each transaction as it comes, after mining whatever waited in the pool. */
  resumeMining(): Promise<void>;
  /** The number of transactions waiting in the pool. */
  pendingCount(): Promise<number>;
  /** Mines one block now. */
  mine(): Promise<void>;
  /** A snapshot id for revert(); the pool is part of it. */
  snapshot(): Promise<string>;
  /** Back to the snapshot: later blocks and pool transactions are forgotten. */
  revert(snapshotId: string): Promise<void>;
  /** Moves the clock forward by `seconds` and mines a block at the new time. */
  increaseTime(seconds: number): Promise<void>;
  /** The next block's timestamp (Unix seconds). */
  setNextBlockTimestamp(timestamp: number | bigint): Promise<void>;
  setBalance(address: Address, wei: bigint): Promise<void>;
  setCode(address: Address, code: Hex): Promise<void>;
  setNonce(address: Address, nonce: number): Promise<void>;
  setStorageAt(address: Address, slot: Hex, value: Hex): Promise<void>;
  stop(): Promise<void>;
}

const quantity = (value: number | bigint) => `0x${BigInt(value).toString(16)}`;

/**
 * `port`: 0 (default) picks a free one; give a fixed one when the URL must be known before the
 * chain starts (e.g. a Playwright webServer env). `deploy: false` leaves the chain empty, as
 * does another `chainId` (a stand-in for Base's JSON-RPC in start-up checks).
 */
export async function startTestChain(
  options: { port?: number; deploy?: boolean; chainId?: number } = {},
): Promise<TestChain> {
  const node = await startLocalNode({ port: options.port ?? 0, chainId: options.chainId });
  const { rpcUrl, port } = node;
  try {
    if (options.deploy !== false && !options.chainId) await deployLocalChain(rpcUrl);
  } catch (error) {
    await node.stop();
    throw error;
  }
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const pendingCount = async () => {
    const block = await rpc<{ transactions: unknown[] }>("eth_getBlockByNumber", [
      "pending",
      false,
    ]);
    return block.transactions.length;
  };
  return {
    rpcUrl,
    port,
    rpc,
    pendingCount,
    async pauseMining() {
      await rpc("evm_setAutomine", [false]);
      await rpc("evm_setIntervalMining", [0]);
    },
    async resumeMining() {
      await rpc("evm_setAutomine", [true]);
      // Turning automine back on mines nothing by itself.
      while ((await pendingCount()) > 0) await rpc("evm_mine");
    },
    async mine() {
      await rpc("evm_mine");
    },
    snapshot: () => rpc<string>("evm_snapshot"),
    async revert(snapshotId) {
      if (!(await rpc<boolean>("evm_revert", [snapshotId]))) {
        throw new Error(`evm_revert: no snapshot ${snapshotId}`);
      }
    },
    async increaseTime(seconds) {
      await rpc("evm_increaseTime", [seconds]);
      await rpc("evm_mine");
    },
    async setNextBlockTimestamp(timestamp) {
      await rpc("evm_setNextBlockTimestamp", [quantity(timestamp)]);
    },
    async setBalance(address, wei) {
      await rpc("hardhat_setBalance", [address, quantity(wei)]);
    },
    async setCode(address, code) {
      await rpc("hardhat_setCode", [address, code]);
    },
    async setNonce(address, nonce) {
      await rpc("hardhat_setNonce", [address, quantity(nonce)]);
    },
    async setStorageAt(address, slot, value) {
      await rpc("hardhat_setStorageAt", [address, slot, value]);
    },
    stop: () => node.stop(),
  };
}
