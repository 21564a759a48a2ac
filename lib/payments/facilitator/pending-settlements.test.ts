// What the facilitator tells x402 it remembers of a settlement it stopped waiting for, on a
// real local chain: a hash the node has (waiting or mined) is kept, one the node dropped (a
// reset) is forgotten for good, and one the node cannot be asked about (it does not answer)
// is kept, since "unknown" must not send an authorization twice.
import { createPublicClient, createWalletClient, http, keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { GANACHE_PRIVATE_KEYS, localChain } from "@/dev/local-chain";
import { pendingSettlementsInNode } from "./pending-settlements";

let chain: TestChain;
const account = privateKeyToAccount(GANACHE_PRIVATE_KEYS[6]);

beforeAll(async () => {
  chain = await startTestChain();
});

afterAll(async () => {
  await chain?.stop();
});

const clientOf = (rpcUrl: string) =>
  createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl, { retryCount: 0 }) });

async function sendTransfer() {
  const wallet = createWalletClient({
    account,
    chain: localChain(chain.rpcUrl),
    transport: http(chain.rpcUrl),
  });
  return wallet.sendTransaction({ to: account.address, value: 1n });
}

describe("pendingSettlementsInNode", () => {
  it("keeps a hash the node has, waiting or mined", async () => {
    const store = pendingSettlementsInNode(clientOf(chain.rpcUrl));
    await chain.pauseMining();
    try {
      const waiting = await sendTransfer();
      await store.set("waiting", waiting);
      expect(await store.get("waiting")).toBe(waiting);
    } finally {
      await chain.resumeMining();
    }
    expect(await store.get("waiting")).toBeDefined();
  });

  it("forgets a hash the node dropped, for good", async () => {
    const store = pendingSettlementsInNode(clientOf(chain.rpcUrl));
    const snapshot = await chain.snapshot();
    await chain.pauseMining();
    const dropped = await sendTransfer();
    await store.set("dropped", dropped);
    await chain.revert(snapshot);
    await chain.resumeMining();
    expect(await store.get("dropped")).toBeUndefined();
    // Forgotten, not only hidden: a node that somehow knew it again changes nothing.
    expect(await store.get("dropped")).toBeUndefined();
  });

  it("keeps a hash when the node does not answer", async () => {
    const store = pendingSettlementsInNode(clientOf("http://127.0.0.1:9"));
    const hash = keccak256(toHex("a settlement"));
    await store.set("unanswered", hash);
    expect(await store.get("unanswered")).toBe(hash);
  });

  it("has nothing for a signature it was never told of, and deletes on request", async () => {
    const store = pendingSettlementsInNode(clientOf(chain.rpcUrl));
    expect(await store.get("never")).toBeUndefined();
    const hash = await sendTransfer();
    await store.set("deleted", hash);
    await store.delete("deleted");
    expect(await store.get("deleted")).toBeUndefined();
  });
});
