// The facilitator's gas keys (FACILITATOR_PRIVATE_KEYS): one ordered queue per key
// (./sender.ts), each settlement given to the key with the fewest transactions waiting, so
// that throughput grows with keys while each key's nonces stay in order. The key and nonce of
// every transaction are told to the owner before its broadcast (`SignedTransaction.from`,
// `.nonce`), receipts are awaited together (./receipts.ts), and each key's ETH balance is read
// periodically with a warning below a threshold (a key that cannot pay gas refuses
// settlements).
import { formatEther, type Hex, type LocalAccount, type PublicClient } from "viem";
import { GasEstimates } from "./gas-estimates";
import { ReceiptWatcher } from "./receipts";
import { type OnSigned, type SendOptions, type SendRequest, SerialSender } from "./sender";

export interface BalanceWatch {
  /** Below this many wei a key's balance is logged as a warning. */
  minimumWei: bigint;
  intervalMs: number;
  /** Where the warning goes (console.warn by default). */
  warn?: (line: string) => void;
}

export interface SenderPoolOptions {
  accounts: LocalAccount[];
  client: PublicClient;
  chainId: number;
  pollingIntervalMs: number;
  retryDelayMs?: number;
  balance?: BalanceWatch;
}

export class SenderPool {
  readonly senders: SerialSender[];
  readonly receipts: ReceiptWatcher;
  /** Simulations whose gas figures serve the sends of the same calldata (./gas-estimates.ts). */
  readonly estimates: GasEstimates;
  private turn = 0;
  private balanceTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SenderPoolOptions) {
    if (options.accounts.length === 0) throw new Error("a sender pool needs at least one key");
    const addresses = options.accounts.map((account) => account.address.toLowerCase());
    if (new Set(addresses).size !== addresses.length) {
      throw new Error("a gas key is given twice: each key must have one queue");
    }
    this.senders = options.accounts.map(
      (account) =>
        new SerialSender({
          account,
          client: options.client,
          chainId: options.chainId,
          retryDelayMs: options.retryDelayMs,
        }),
    );
    this.receipts = new ReceiptWatcher(options.client, options.pollingIntervalMs);
    // From the first key: the calls sent here (EIP-3009 transfers) do not depend on the sender.
    const first = this.senders[0]!;
    this.estimates = new GasEstimates((request) => first.estimateGas(request));
  }

  get addresses(): Hex[] {
    return this.senders.map((sender) => sender.address);
  }

  /** On the key with the fewest transactions waiting (ties take turns). */
  send(request: SendRequest, onSigned?: OnSigned, options: SendOptions = {}): Promise<Hex> {
    const gas = options.gas ?? this.estimates.take(request);
    return this.pick().send(request, onSigned, { ...options, gas });
  }

  private pick(): SerialSender {
    const count = this.senders.length;
    let best = this.senders[this.turn % count]!;
    for (let i = 1; i < count; i++) {
      const candidate = this.senders[(this.turn + i) % count]!;
      if (candidate.queued < best.queued) best = candidate;
    }
    this.turn = (this.turn + 1) % count;
    return best;
  }

  /** Reads every key's balance now, warning about the low ones; resolves with the balances. */
  async checkBalances(): Promise<Map<Hex, bigint>> {
    const watch = this.options.balance;
    const balances = new Map<Hex, bigint>();
    await Promise.all(
      this.addresses.map(async (address) => {
        const wei = await this.options.client.getBalance({ address });
        balances.set(address, wei);
        if (watch && wei < watch.minimumWei) {
          (watch.warn ?? console.warn)(
            `facilitator gas key ${address} is low: ${formatEther(wei)} ETH, below ` +
              `${formatEther(watch.minimumWei)} ETH (FACILITATOR_MIN_BALANCE_ETH); fund it ` +
              "or its settlements will be refused",
          );
        }
      }),
    );
    return balances;
  }

  /** Checks now and then every `intervalMs`, without keeping the process alive. */
  watchBalances(): void {
    const watch = this.options.balance;
    if (!watch || this.balanceTimer) return;
    const check = () =>
      void this.checkBalances().catch((error: unknown) =>
        (watch.warn ?? console.warn)(
          `facilitator gas keys: balance check failed: ${error instanceof Error ? error.message : error}`,
        ),
      );
    check();
    this.balanceTimer = setInterval(check, watch.intervalMs);
    this.balanceTimer.unref();
  }

  stop(): void {
    clearInterval(this.balanceTimer);
    this.balanceTimer = undefined;
  }
}
