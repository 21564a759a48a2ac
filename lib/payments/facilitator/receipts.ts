// Receipts awaited together: one watcher per chain client reads each new block once and
// hands its transactions' receipts to whoever waits for them, instead of every waiting
// settlement polling for its own receipt on every block (with 50 settlements in flight and a
// block per transaction, that was 50 lookups per block, all queued at the same node as the
// sends themselves).
import {
  type Hex,
  type PublicClient,
  TransactionReceiptNotFoundError,
  type TransactionReceipt,
  WaitForTransactionReceiptTimeoutError,
} from "viem";
import { RecentMap } from "@/lib/shared/recent-map";

/** Beyond this many new blocks at once, asking for each waited receipt is cheaper than reading the blocks. */
const MAX_BLOCKS_PER_SCAN = 32;

interface Waiter {
  resolve(receipt: TransactionReceipt): void;
  /** Asked directly once, after a head was read (so later blocks are scanned for it). */
  checked: boolean;
}

export class ReceiptWatcher {
  private readonly waiters = new Map<Hex, Waiter[]>();
  /** The last block whose transactions were matched against the waiters. */
  private lastSeen: bigint | undefined;
  private running = false;
  /** How many receipt lookups the watcher made (a test reads it). */
  lookups = 0;
  /**
   * Receipts handed out in the last minute (at most 2,000), so that the settlement that waited
   * for one can check it without asking the chain again (recent()).
   */
  private readonly delivered = new RecentMap<Hex, TransactionReceipt>({
    maxAgeMs: 60_000,
    max: 2_000,
  });

  constructor(
    private readonly client: PublicClient,
    private readonly pollingIntervalMs: number,
  ) {}

  /** The transaction's receipt once mined; rejects after `timeoutMs` (it may still land). */
  wait(hash: Hex, timeoutMs: number): Promise<TransactionReceipt> {
    const key = hash.toLowerCase() as Hex;
    return new Promise<TransactionReceipt>((resolve, reject) => {
      const waiter: Waiter = {
        checked: false,
        resolve: (receipt) => {
          clearTimeout(timer);
          resolve(receipt);
        },
      };
      const timer = setTimeout(() => {
        this.remove(key, waiter);
        reject(new WaitForTransactionReceiptTimeoutError({ hash }));
      }, timeoutMs);
      this.waiters.set(key, [...(this.waiters.get(key) ?? []), waiter]);
      this.start();
    });
  }

  private remove(hash: Hex, waiter: Waiter) {
    const rest = (this.waiters.get(hash) ?? []).filter((w) => w !== waiter);
    if (rest.length > 0) this.waiters.set(hash, rest);
    else this.waiters.delete(hash);
  }

  /** A receipt this watcher handed out lately, if any. */
  recent(hash: Hex): TransactionReceipt | undefined {
    return this.delivered.get(hash.toLowerCase() as Hex);
  }

  private deliver(receipt: TransactionReceipt) {
    const hash = receipt.transactionHash.toLowerCase() as Hex;
    this.delivered.set(hash, receipt);
    const waiting = this.waiters.get(hash);
    this.waiters.delete(hash);
    for (const waiter of waiting ?? []) waiter.resolve(receipt);
  }

  private start() {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  private async loop() {
    try {
      while (this.waiters.size > 0) {
        await this.poll().catch((error: unknown) => {
          // A failed poll is tried again next time; waiters time out on their own.
          console.warn(`receipt watcher: ${error instanceof Error ? error.message : error}`);
        });
        if (this.waiters.size > 0) await sleep(this.pollingIntervalMs);
      }
    } finally {
      this.running = false;
      // Idle: the next waiter starts from a fresh head (and is asked directly first).
      this.lastSeen = undefined;
      if (this.waiters.size > 0) this.start();
    }
  }

  /**
   * Reads the head first, then matches the blocks since the last one seen, then asks directly
   * for the receipts of waiters not yet asked: a transaction mined at or before that head is
   * found by the direct question, one mined after it by a later scan. The blocks are read only
   * for a waiter already asked and not found then: one not yet asked is found by its question
   * wherever it was mined (on a chain that mines each transaction as it comes, every waiter is
   * found so, and no block is read).
   */
  private async poll() {
    const head = await this.client.getBlockNumber({ cacheTime: 0 });
    const from = this.lastSeen === undefined ? undefined : this.lastSeen + 1n;
    const askedBefore = [...this.waiters.values()].some((list) => list.every((w) => w.checked));
    if (from !== undefined && head >= from && askedBefore) {
      if (head - from >= BigInt(MAX_BLOCKS_PER_SCAN)) {
        await this.askDirectly([...this.waiters.keys()]);
      } else {
        for (let number = from; number <= head; number++) await this.scanBlock(number);
      }
    }
    this.lastSeen = head > (this.lastSeen ?? -1n) ? head : this.lastSeen;
    const unchecked = [...this.waiters].filter(([, list]) => list.some((w) => !w.checked));
    for (const [, list] of unchecked) for (const waiter of list) waiter.checked = true;
    await this.askDirectly(unchecked.map(([hash]) => hash));
  }

  private async scanBlock(number: bigint) {
    const block = await this.client.getBlock({ blockNumber: number, includeTransactions: false });
    const ours = block.transactions.filter((hash) => this.waiters.has(hash.toLowerCase() as Hex));
    await this.askDirectly(ours);
  }

  private async askDirectly(hashes: Hex[]) {
    await Promise.all(
      hashes.map(async (hash) => {
        this.lookups++;
        try {
          this.deliver(await this.client.getTransactionReceipt({ hash }));
        } catch (error) {
          if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
        }
      }),
    );
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
