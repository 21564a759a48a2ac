// The node npm run chain starts, kept on disk: stopped and started again on the same data
// directory it comes back as it was (blocks, hashes, receipts, balances, installed code), its
// clock on the wall clock, and it goes on taking transactions.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPublicClient, createWalletClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import { testUsdcAbi } from "./contracts";
import { localEscrowCode } from "./escrow";
import { startLocalNode, type LocalNode } from "./hardhat-node";
import {
  DEMO_ACCOUNTS,
  DEMO_FUNDING_ATOMIC,
  LOCAL_TOKEN_ADDRESS,
  deployLocalChain,
  localChain,
  mintTestUsdc,
} from "./local-chain";
import { JournalMismatchError } from "./chain-journal";

const dirs: string[] = [];
const nodes: LocalNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((node) => node.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(dataDir: string) {
  const node = await startLocalNode({ dataDir });
  nodes.push(node);
  const transport = http(node.rpcUrl, { retryCount: 0 });
  const client = createPublicClient({
    chain: localChain(node.rpcUrl),
    transport,
    pollingInterval: 50,
  });
  return { node, client, transport };
}

const newDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "local-chain-"));
  dirs.push(dir);
  return dir;
};

describe("a local chain kept in a data directory", () => {
  it("replays itself on restart: same blocks, receipts, balances and code; then goes on", async () => {
    const dir = newDir();
    const payer = privateKeyToAccount(DEMO_ACCOUNTS[0]!.privateKey);
    const payee = DEMO_ACCOUNTS[1]!.address;

    const first = await start(dir);
    expect(first.node.replayedBlocks).toBe(0);
    expect((await deployLocalChain(first.node.rpcUrl)).deployed).toBe(true);
    const wallet = createWalletClient({
      account: payer,
      chain: localChain(first.node.rpcUrl),
      transport: first.transport,
    });
    const transfer = await wallet.writeContract({
      address: LOCAL_TOKEN_ADDRESS,
      abi: testUsdcAbi,
      functionName: "transfer",
      args: [payee, 1_250_000n],
    });
    await first.client.waitForTransactionReceipt({ hash: transfer });
    // A node-signed transaction (eth_sendTransaction from one of its accounts) and a mint.
    const plain = await first.client.request({
      method: "eth_sendTransaction",
      params: [{ from: DEMO_ACCOUNTS[2]!.address, to: payee, value: "0x1" }],
    } as never);
    await first.client.waitForTransactionReceipt({ hash: plain as Hex });
    await mintTestUsdc(first.node.rpcUrl, payee, 3_000_000n);
    const latest = await first.client.getBlock();
    const receipt = await first.client.getTransactionReceipt({ hash: transfer });
    await first.node.stop();

    const second = await start(dir);
    expect(second.node.replayedBlocks).toBe(Number(latest.number));
    expect(await second.client.getBlock({ blockNumber: latest.number })).toMatchObject({
      hash: latest.hash,
      timestamp: latest.timestamp,
    });
    expect(await second.client.getTransactionReceipt({ hash: transfer })).toMatchObject({
      blockHash: receipt.blockHash,
      status: "success",
    });
    const balanceOf = (address: `0x${string}`) =>
      second.client.readContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "balanceOf",
        args: [address],
      });
    expect(await balanceOf(payer.address)).toBe(DEMO_FUNDING_ATOMIC - 1_250_000n);
    expect(await balanceOf(payee)).toBe(DEMO_FUNDING_ATOMIC + 1_250_000n + 3_000_000n);
    for (const { address, code } of localEscrowCode()) {
      expect(await second.client.getCode({ address })).toBe(code);
    }
    // Nothing left to deploy, and the next block is on the wall clock again.
    expect((await deployLocalChain(second.node.rpcUrl)).deployed).toBe(false);
    await mintTestUsdc(second.node.rpcUrl, payee, 1n);
    const next = await second.client.getBlock();
    expect(next.number).toBe(latest.number + 1n);
    // Automine gives each block its own second, so a quick run of blocks runs ahead of the
    // wall clock; a new block is never older than the last one, nor behind the wall clock.
    const expected = Math.max(Number(latest.timestamp) + 1, Math.floor(Date.now() / 1000));
    expect(Math.abs(Number(next.timestamp) - expected)).toBeLessThanOrEqual(2);
  });

  it("puts the clock back on the wall clock after a restart (mining at recorded times stops it)", async () => {
    const dir = newDir();
    const first = await start(dir);
    await first.client.request({ method: "evm_mine" } as never);
    const last = await first.client.getBlock();
    await first.node.stop();
    await new Promise((resolve) => setTimeout(resolve, 4_000));

    const second = await start(dir);
    expect(second.node.replayedBlocks).toBe(1);
    await second.client.request({ method: "evm_mine" } as never);
    const next = await second.client.getBlock();
    expect(next.number).toBe(2n);
    expect(Number(next.timestamp)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 1);
    expect(next.timestamp).toBeGreaterThan(last.timestamp + 2n);
  });

  it("keeps its clock on the wall clock through a burst of blocks (one per transaction)", async () => {
    const { client } = await start(newDir());
    for (let i = 0; i < 40; i++) await client.request({ method: "evm_mine" } as never);
    const head = await client.getBlock();
    expect(head.number).toBe(40n);
    // Forty blocks in well under forty seconds: a second per block would put it ~40 s ahead.
    expect(Number(head.timestamp)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
  });

  it("refuses a data directory whose journal this node did not write", async () => {
    const dir = newDir();
    const first = await start(dir);
    await deployLocalChain(first.node.rpcUrl);
    await first.node.stop();
    const file = path.join(dir, "journal.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    // Another timestamp for block 1: the replayed block's hash cannot match.
    const block = JSON.parse(lines.find((line) => line.includes('"number":1,'))!);
    lines[lines.indexOf(lines.find((line) => line.includes('"number":1,'))!)] = JSON.stringify({
      ...block,
      hash: `0x${"ab".repeat(32)}`,
    });
    writeFileSync(file, lines.join("\n"));
    await expect(startLocalNode({ dataDir: dir })).rejects.toThrow(JournalMismatchError);
  });

  it("refuses a second node on the same data directory", async () => {
    const dir = newDir();
    await start(dir);
    await expect(startLocalNode({ dataDir: dir })).rejects.toThrow(/Another process|is using/);
  });
});
