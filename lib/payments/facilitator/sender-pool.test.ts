// Several gas keys against a real local chain: each send on one key, both keys used, each
// key's nonces in order; receipts awaited together (the lookups do not grow with the waiting);
// a low balance warned about; no block read while every waiter is found by its own question.
import { createPublicClient, encodeFunctionData, http, parseEther, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { countingClient } from "@/tests/helpers/counting-client";
import { GANACHE_PRIVATE_KEYS, localChain, LOCAL_TOKEN_ADDRESS } from "@/dev/local-chain";
import { ReceiptWatcher } from "./receipts";
import type { SignedTransaction } from "./sender";
import { SenderPool } from "./sender-pool";
import { usdcAbi } from "../chain/usdc-abi";

let chain: TestChain;
const keys = [GANACHE_PRIVATE_KEYS[6], GANACHE_PRIVATE_KEYS[7]];

beforeAll(async () => {
  chain = await startTestChain();
});

afterAll(async () => {
  await chain?.stop();
});

function client() {
  return createPublicClient({
    chain: localChain(chain.rpcUrl),
    transport: http(chain.rpcUrl, { retryCount: 0 }),
    pollingInterval: 50,
  });
}

function pool(
  privateKeys: Hex[],
  balance?: ConstructorParameters<typeof SenderPool>[0]["balance"],
) {
  return new SenderPool({
    accounts: privateKeys.map((key) => privateKeyToAccount(key)),
    client: client(),
    chainId: 31337,
    pollingIntervalMs: 50,
    retryDelayMs: 20,
    balance,
  });
}

/** A harmless call: balanceOf as a transaction (it succeeds and changes nothing). */
const call = (n: number) => ({
  to: LOCAL_TOKEN_ADDRESS,
  data: encodeFunctionData({
    abi: usdcAbi,
    functionName: "balanceOf",
    args: [`0x${n.toString(16).padStart(40, "0")}`],
  }),
});

describe("the facilitator's gas keys", () => {
  it("spreads concurrent sends over both keys, each key's nonces consecutive and in order", async () => {
    const senders = pool(keys);
    const [a, b] = senders.addresses as [Hex, Hex];
    const starts = {
      [a]: await client().getTransactionCount({ address: a }),
      [b]: await client().getTransactionCount({ address: b }),
    };
    const signed: SignedTransaction[] = [];
    const hashes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => senders.send(call(i), (tx) => void signed.push(tx))),
    );
    for (const address of [a, b]) {
      const own = signed.filter((tx) => tx.from === address).map((tx) => tx.nonce);
      // Used, and broadcast in nonce order from where the key stood.
      expect(own.length).toBeGreaterThanOrEqual(10);
      expect(own).toEqual(own.map((_, i) => starts[address]! + i));
    }
    expect(signed).toHaveLength(30);
    const receipts = await Promise.all(hashes.map((hash) => senders.receipts.wait(hash, 20_000)));
    expect(new Set(receipts.map((receipt) => receipt.status))).toEqual(new Set(["success"]));
    // Each receipt was sent by the key the owner was told of.
    for (const receipt of receipts) {
      const told = signed.find((tx) => tx.hash === receipt.transactionHash);
      expect(receipt.from.toLowerCase()).toBe(told?.from.toLowerCase());
    }
  });

  it("refuses a key given twice", () => {
    expect(() => pool([keys[0]!, keys[0]!])).toThrow(/twice/);
  });

  it("awaits receipts together: waiting longer for more transactions costs no more lookups", async () => {
    const senders = pool(keys);
    const watcher = new ReceiptWatcher(client(), 20);
    await chain.pauseMining();
    let hashes: Hex[];
    let waits: Promise<{ status: string }>[];
    try {
      hashes = await Promise.all(Array.from({ length: 12 }, (_, i) => senders.send(call(i))));
      waits = hashes.map((hash) => watcher.wait(hash, 20_000));
      // Many polls pass with all twelve unmined: each was asked for once, then only blocks are.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(watcher.lookups).toBe(12);
    } finally {
      await chain.resumeMining();
    }
    const receipts = await Promise.all(waits);
    expect(new Set(receipts.map((receipt) => receipt.status))).toEqual(new Set(["success"]));
    // Once more each, from the block that holds it: 2 per transaction, whatever the wait.
    expect(watcher.lookups).toBe(24);
  });

  it("reads no block while every waiter is found by its own question (a chain that mines at once)", async () => {
    const { client: counting, calls } = countingClient(chain.rpcUrl, 20);
    const watcher = new ReceiptWatcher(counting, 20);
    const senders = pool(keys);
    // Sent and waited for in waves while blocks keep coming: each wait is asked for once.
    const receipts = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 15));
        return watcher.wait(await senders.send(call(i)), 20_000);
      }),
    );
    expect(new Set(receipts.map((receipt) => receipt.status))).toEqual(new Set(["success"]));
    expect(watcher.lookups).toBe(12);
    expect(calls.eth_getBlockByNumber ?? 0).toBe(0);
  });

  it("times out a receipt that never comes without failing the others", async () => {
    const watcher = new ReceiptWatcher(client(), 20);
    const senders = pool(keys);
    const hash = await senders.send(call(1));
    const never = `0x${"ee".repeat(32)}` as Hex;
    await expect(watcher.wait(never, 200)).rejects.toThrow(/Timed out/i);
    expect((await watcher.wait(hash, 20_000)).status).toBe("success");
  });

  it("warns about a key whose ETH balance is below the minimum, periodically", async () => {
    const low = generatePrivateKey();
    const lowAddress = privateKeyToAccount(low).address;
    await chain.setBalance(lowAddress, parseEther("0.001"));
    const warnings: string[] = [];
    const senders = pool([keys[0]!, low], {
      minimumWei: parseEther("0.01"),
      intervalMs: 50,
      warn: (line) => warnings.push(line),
    });
    senders.watchBalances();
    try {
      await expect.poll(() => warnings.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    } finally {
      senders.stop();
    }
    // Only the low key, with its balance and the minimum.
    for (const line of warnings) {
      expect(line).toContain(lowAddress);
      expect(line).toMatch(/0\.001 ETH, below 0\.01 ETH/);
    }
    const balances = await senders.checkBalances();
    expect(balances.get(lowAddress)).toBe(parseEther("0.001"));
  });
});
