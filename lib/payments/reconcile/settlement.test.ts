// The chain's verdict on a pending settlement when the RPC is a load balancer over nodes at
// different heights: a slot may only be freed on an answer pinned to one final block.
// The client here stands in for an external JSON-RPC node; the real chain's behaviour is
// covered by the HTTP fault suite.
import { type PublicClient, TransactionNotFoundError, TransactionReceiptNotFoundError } from "viem";
import { describe, expect, it } from "vitest";
import type { Settlement } from "@/lib/generated/prisma/client";
import { judgeFromChain } from "./settlement";
import { AuthorizationLogNotFoundError } from "../chain/verify-receipt";

const VALID_BEFORE = 1_000n;

function row(overrides: Partial<Settlement> = {}): Settlement {
  return {
    id: "stl_1",
    jobId: "job_1",
    proposalId: "prop_1",
    payer: "0x2222222222222222222222222222222222222222",
    payTo: "0x1111111111111111111111111111111111111111",
    amountAtomic: 5_000_000n,
    network: "eip155:8453",
    asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    scheme: "exact",
    escrowTerms: null,
    authorizationNonce: `0x${"cd".repeat(32)}`,
    validBefore: VALID_BEFORE,
    txHash: null,
    senderAddress: null,
    senderNonce: null,
    status: "pending",
    failureReason: null,
    failureCode: null,
    lastError: null,
    claimBlock: 90n,
    payload: null,
    leaseUntil: null,
    inFlightUntil: null,
    attempts: 0,
    createdAt: new Date(),
    updatedAt: new Date(),
    settledAt: null,
    ...overrides,
  };
}

/**
 * A node answering as the tests say: block timestamps by number, authorizationState by block
 * number, no logs and no receipts. Records the blocks every state read was pinned to.
 */
function node(options: {
  head: bigint;
  timestampOf: (block: bigint) => bigint;
  usedAt: (block: bigint | undefined) => boolean;
}) {
  const stateReads: (bigint | undefined)[] = [];
  const client = {
    getBlock: async (args: { blockTag?: string; blockNumber?: bigint }) => {
      const number = args.blockNumber ?? options.head;
      return { number, timestamp: options.timestampOf(number) };
    },
    readContract: async (args: { blockNumber?: bigint }) => {
      stateReads.push(args.blockNumber);
      return options.usedAt(args.blockNumber);
    },
    getContractEvents: async () => [],
    getTransactionReceipt: async () => {
      throw new TransactionReceiptNotFoundError({ hash: "0x00" });
    },
    getTransaction: async () => {
      throw new TransactionNotFoundError({ hash: "0x00" });
    },
  };
  return { client: client as unknown as PublicClient, stateReads };
}

describe("the chain's verdict on a pending settlement", () => {
  it("a used authorization whose log no node shows is unknown, never 'failed'", async () => {
    // The head (block 100) says used; a lagging node asked for "latest" would say unused, and
    // the logs have nothing yet.
    const { client } = node({
      head: 100n,
      timestampOf: (n) => n * 10n,
      usedAt: (block) => block !== undefined,
    });
    await expect(
      judgeFromChain(client, row({ txHash: `0x${"ab".repeat(32)}` }), 5),
    ).rejects.toThrow(AuthorizationLogNotFoundError);
  });

  it("pins every state read to one block", async () => {
    const { client, stateReads } = node({
      head: 100n,
      timestampOf: (n) => n * 5n,
      usedAt: () => false,
    });
    await judgeFromChain(client, row(), 5);
    expect(stateReads.every((block) => block !== undefined)).toBe(true);
    expect(stateReads[0]).toBe(100n);
  });

  it("does not free the slot while only the head, not a final block, is past validBefore", async () => {
    // Head 100 at t=1000 (= validBefore), block 95 at t=950: a reorg could still bring a
    // transfer in a block before t=1000.
    const { client } = node({ head: 100n, timestampOf: (n) => n * 10n, usedAt: () => false });
    expect(await judgeFromChain(client, row(), 5)).toEqual({
      state: "in_flight",
      txPending: false,
    });
  });

  it("frees the slot once a final block is past validBefore with the authorization unused there", async () => {
    const { client, stateReads } = node({
      head: 120n,
      timestampOf: (n) => n * 10n,
      usedAt: () => false,
    });
    expect(await judgeFromChain(client, row(), 5)).toEqual({ state: "never", reason: "expired" });
    expect(stateReads).toEqual([120n, 115n]);
  });

  it("refuses to decide when a final block says used and the head says unused", async () => {
    const { client } = node({
      head: 120n,
      timestampOf: (n) => n * 10n,
      usedAt: (block) => block === 115n,
    });
    await expect(judgeFromChain(client, row(), 5)).rejects.toThrow(/final block/);
  });

  it("on the local chain (no reorgs) the head itself is final", async () => {
    const { client } = node({ head: 100n, timestampOf: (n) => n * 10n, usedAt: () => false });
    expect(await judgeFromChain(client, row(), 0)).toEqual({ state: "never", reason: "expired" });
  });
});
