// The facilitator's ordered sender against a real local chain: many concurrent sends from one
// key, pipelined (each broadcast before the previous one is mined, in nonce order; the next one
// signed and recorded while the one ahead is still being recorded; a run asking the node's
// nonce once; a simulation's estimate serving its send), a nonce taken behind its back (a
// second process with the key), a record that fails (the next one signed again with the freed
// nonce), a paused chain, a restarted process finding its predecessor's transactions still
// pending, and a chain reset that drops them.
import { createPublicClient, createWalletClient, encodeFunctionData, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { countingClient } from "@/tests/helpers/counting-client";
import { GANACHE_PRIVATE_KEYS, localChain, LOCAL_TOKEN_ADDRESS } from "@/dev/local-chain";
import { GasEstimates } from "./gas-estimates";
import { ReceiptWatcher } from "./receipts";
import { SerialSender, type SignedTransaction } from "./sender";
import { usdcAbi } from "../chain/usdc-abi";

let chain: TestChain;
const account = privateKeyToAccount(GANACHE_PRIVATE_KEYS[5]);

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

function newSender() {
  return new SerialSender({ account, client: client(), chainId: 31337, retryDelayMs: 20 });
}

/** A sender whose client counts the JSON-RPC calls it makes, by method. */
function countingSender() {
  const { client: counting, calls } = countingClient(chain.rpcUrl, 50);
  const sender = new SerialSender({ account, client: counting, chainId: 31337, retryDelayMs: 20 });
  return { sender, calls };
}

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A harmless call: balanceOf as a transaction (it succeeds and changes nothing). */
const call = (n: number) => ({
  to: LOCAL_TOKEN_ADDRESS,
  data: encodeFunctionData({
    abi: usdcAbi,
    functionName: "balanceOf",
    args: [`0x${n.toString(16).padStart(40, "0")}`],
  }),
});

async function nonceOf(hash: Hex) {
  return (await client().getTransaction({ hash })).nonce;
}

async function mined(hashes: Hex[]) {
  const receipts = await Promise.all(
    hashes.map((hash) => client().waitForTransactionReceipt({ hash, timeout: 20_000 })),
  );
  return receipts.map((receipt) => receipt.status);
}

describe("the serial settlement sender", () => {
  it("sends 40 concurrent transactions from one key with consecutive nonces, all mined", async () => {
    const sender = newSender();
    const start = await client().getTransactionCount({ address: account.address });
    const hashes = await Promise.all(Array.from({ length: 40 }, (_, i) => sender.send(call(i))));
    expect(new Set(hashes).size).toBe(40);
    const nonces = await Promise.all(hashes.map(nonceOf));
    expect([...nonces].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => start + i),
    );
    expect(new Set(await mined(hashes))).toEqual(new Set(["success"]));
  });

  it("pipelines: every send is broadcast while the ones before it are still unmined, in nonce order", async () => {
    const sender = newSender();
    const start = await client().getTransactionCount({ address: account.address });
    const signed: SignedTransaction[] = [];
    await chain.pauseMining();
    let hashes: Hex[];
    try {
      // All ten resolve (the node has them) with nothing mined: no send waited for a receipt.
      hashes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => sender.send(call(i), (tx) => void signed.push(tx))),
      );
      expect(await chain.pendingCount()).toBe(10);
      // Broadcast one after the other, each with the next nonce, in the order they were queued.
      expect(signed.map((tx) => tx.nonce)).toEqual(Array.from({ length: 10 }, (_, i) => start + i));
      expect(signed.map((tx) => tx.hash)).toEqual(hashes);
      expect(new Set(signed.map((tx) => tx.from))).toEqual(new Set([account.address]));
    } finally {
      await chain.resumeMining();
    }
    expect(new Set(await mined(hashes))).toEqual(new Set(["success"]));
  });

  it("signs and records the next transaction while the one ahead is still being recorded, and broadcasts in order", async () => {
    const sender = newSender();
    const start = await client().getTransactionCount({ address: account.address });
    const events: string[] = [];
    // The first record is slow: the second is signed and recorded meanwhile, and still goes
    // out after it, with the next nonce.
    const record = (n: number) => async (tx: SignedTransaction) => {
      events.push(`record ${n} nonce ${tx.nonce - start}`);
      if (n === 1) await later(300);
      events.push(`recorded ${n}`);
    };
    const sends = [1, 2, 3].map((n) => sender.send(call(n), record(n)));
    const hashes = await Promise.all(sends);
    expect(events.indexOf("record 2 nonce 1")).toBeLessThan(events.indexOf("recorded 1"));
    expect(events.filter((e) => e.startsWith("record "))).toEqual([
      "record 1 nonce 0",
      "record 2 nonce 1",
      "record 3 nonce 2",
    ]);
    expect(await Promise.all(hashes.map(nonceOf))).toEqual([start, start + 1, start + 2]);
    expect(new Set(await mined(hashes))).toEqual(new Set(["success"]));
  });

  it("asks the node's nonce count once for a run of back-to-back sends", async () => {
    const { sender, calls } = countingSender();
    const hashes = await Promise.all(Array.from({ length: 8 }, (_, i) => sender.send(call(i))));
    expect(calls.eth_getTransactionCount).toBe(1);
    expect(calls.eth_sendRawTransaction).toBe(8);
    expect(new Set(await mined(hashes))).toEqual(new Set(["success"]));
    // Alone again, the next send asks.
    await sender.send(call(9));
    expect(calls.eth_getTransactionCount).toBe(2);
  });

  it("sends with the gas its simulation estimated, without estimating again", async () => {
    const { sender, calls } = countingSender();
    const estimates = new GasEstimates((request) => sender.estimateGas(request));
    const request = call(42);
    const gas = await estimates.simulate(request);
    expect(calls.eth_estimateGas).toBe(1);
    const hash = await sender.send(request, undefined, { gas: estimates.take(request) });
    expect(calls.eth_estimateGas).toBe(1);
    expect((await client().getTransaction({ hash })).gas).toBe((gas * 12n) / 10n);
    // Taken once: the same request again is estimated again.
    expect(estimates.take(request)).toBeUndefined();
  });

  it("a record that fails leaves its transaction unsent, and the one behind takes the freed nonce", async () => {
    const sender = newSender();
    const start = await client().getTransactionCount({ address: account.address });
    const signed: SignedTransaction[] = [];
    const first = sender.send(
      call(1),
      async () => {
        await later(100);
        throw new Error("the ledger is down");
      },
      { abortIfUnrecorded: true },
    );
    const second = sender.send(call(2), (tx) => void signed.push(tx));
    await expect(first).rejects.toThrow("the ledger is down");
    const hash = await second;
    // Signed ahead with the nonce after the first's, then again with the first's freed nonce.
    expect(signed.map((tx) => tx.nonce - start)).toEqual([1, 0]);
    expect(signed.at(-1)!.hash).toBe(hash);
    expect(await nonceOf(hash)).toBe(start);
    expect(await mined([hash])).toEqual(["success"]);
  });

  it("records a re-signed transaction after the one signed ahead, so the ledger's last word is the one broadcast", async () => {
    const sender = newSender();
    const first = sender.send(
      call(3),
      async () => {
        await later(100);
        throw new Error("the ledger is down");
      },
      { abortIfUnrecorded: true },
    );
    const recordsDone: Hex[] = [];
    let records = 0;
    const second = sender.send(call(4), async (tx) => {
      // The record of its signature made ahead is the slower one.
      if (records++ === 0) await later(400);
      recordsDone.push(tx.hash);
    });
    await expect(first).rejects.toThrow("the ledger is down");
    const hash = await second;
    expect(recordsDone).toHaveLength(2);
    expect(recordsDone.at(-1)).toBe(hash);
    expect(await mined([hash])).toEqual(["success"]);
  });

  it("after a restart, takes the nonces after its predecessor's pending transactions and finds their receipts", async () => {
    const before = newSender();
    const start = await client().getTransactionCount({ address: account.address });
    await chain.pauseMining();
    let theirs: Hex[];
    let ours: Hex;
    const watcher = new ReceiptWatcher(client(), 50);
    try {
      theirs = [await before.send(call(1)), await before.send(call(2))];
      // A new process with the same key: nothing in memory, the node's pending count only.
      ours = await newSender().send(call(3));
      expect(await nonceOf(ours)).toBe(start + 2);
    } finally {
      await chain.resumeMining();
    }
    const receipts = await Promise.all([...theirs, ours].map((hash) => watcher.wait(hash, 20_000)));
    expect(receipts.map((receipt) => receipt.status)).toEqual(["success", "success", "success"]);
  });

  it("takes the next nonce when another process used this one (no refusal)", async () => {
    const sender = newSender();
    await sender.send(call(1));
    // A second process with the same key sends behind the sender's back.
    const other = createWalletClient({
      account,
      chain: localChain(chain.rpcUrl),
      transport: http(chain.rpcUrl),
    });
    const theirs = await other.sendTransaction({ ...call(2) });
    const ours = await sender.send(call(3));
    expect(await nonceOf(ours)).toBe((await nonceOf(theirs)) + 1);
    expect(await mined([ours])).toEqual(["success"]);
  });

  it("keeps counting while the chain holds its transactions unmined, then all land", async () => {
    const sender = newSender();
    const start = await client().getTransactionCount({ address: account.address });
    await chain.pauseMining();
    let hashes: Hex[];
    try {
      hashes = [];
      for (let i = 0; i < 5; i++) hashes.push(await sender.send(call(i)));
      // Whatever the node's "pending" count says, the sender must not reuse their nonces.
      expect(await Promise.all(hashes.map(nonceOf))).toEqual([0, 1, 2, 3, 4].map((i) => start + i));
    } finally {
      await chain.resumeMining();
    }
    expect(new Set(await mined(hashes))).toEqual(new Set(["success"]));
  });

  it("reuses the nonces of transactions the chain dropped (a reset), so later ones land", async () => {
    const sender = newSender();
    const start = await client().getTransactionCount({ address: account.address });
    const snapshot = await chain.snapshot();
    await chain.pauseMining();
    await sender.send(call(1));
    await sender.send(call(2));
    await chain.revert(snapshot);
    await chain.resumeMining();
    const after = await sender.send(call(3));
    expect(await nonceOf(after)).toBe(start);
    expect(await mined([after])).toEqual(["success"]);
  });

  it("refuses a transaction that would revert without broadcasting it", async () => {
    const sender = newSender();
    const before = await client().getTransactionCount({ address: account.address });
    const reverting = {
      to: LOCAL_TOKEN_ADDRESS,
      data: encodeFunctionData({
        abi: [
          {
            type: "function",
            name: "transfer",
            stateMutability: "nonpayable",
            inputs: [
              { name: "to", type: "address" },
              { name: "value", type: "uint256" },
            ],
            outputs: [{ type: "bool" }],
          },
        ],
        functionName: "transfer",
        args: [account.address, 10n ** 30n],
      }),
    };
    await expect(sender.send(reverting)).rejects.toThrow(/revert/i);
    expect(await client().getTransactionCount({ address: account.address })).toBe(before);
    // The queue goes on after a refusal.
    expect(await mined([await sender.send(call(9))])).toEqual(["success"]);
  });
});
