// A gas key's transactions go out in nonce order, pipelined: the next one is signed and
// broadcast as soon as the node accepted the previous one, never after its receipt.
//
// Why ordered (issue 15, measured): with viem's nonce manager, concurrent settlements took
// their nonces before preparing their transactions and then raced to the node. A later nonce
// often arrived first; the node holds such a transaction until the gap is filled, and the
// earlier one's own preparation calls queued behind the held requests. After viem's 10 s RPC
// timeout the held sends failed with "The request took too long to respond", which @x402/evm
// reports as `invalid_exact_evm_transaction_failed`: a refusal for transactions the node had
// accepted. Two processes with the same key collide outright. Here one queue per key assigns
// the nonces in order and broadcasts each transaction only once the one before it was taken by
// the node, and a broadcast whose outcome is unclear is checked against the node and retried
// with the very same signed bytes (same hash), never reported as a refusal.
//
// Why pipelined (issue 27): the queue holds only what must be ordered, the nonce, the
// signature and the broadcast. Each transaction's gas estimate starts when it is queued, beside
// the others (re-estimated in order only if that fails, in case it depended on an earlier one;
// or taken from the simulation that verified it, ./gas-estimates.ts), fees are read once per
// FEE_TTL_MS, and receipts are awaited together by one watcher (./receipts.ts) rather than one
// poll per transaction. And the queue has two stages: a transaction is signed, with the nonce
// after the one ahead, and its hash handed to the ledger while the one ahead is still being
// recorded and broadcast (measured in a burst: the ledger write 13.5 ms and the broadcast 10 ms
// held one key's queue in turn, 27 ms a transaction with the signature); a run of sends asks
// the node's nonce count once.
import { keccak256, type Hex, type LocalAccount, type PublicClient } from "viem";
import { transactionInNode } from "../chain/transactions";

export interface SendRequest {
  to: Hex;
  data: Hex;
}

/** What a sender tells its owner about each transaction, as soon as the hash is known. */
export interface SignedTransaction {
  hash: Hex;
  /** The key that signed it, and its nonce: where the transaction sits in that key's order. */
  from: Hex;
  nonce: number;
  request: SendRequest;
}

/** Hears a transaction's hash before it is broadcast; the broadcast waits for it. */
export type OnSigned = (tx: SignedTransaction) => Promise<void> | void;

export interface SendOptions {
  /** Not broadcast when `onSigned` fails (its nonce stays free for the next one). */
  abortIfUnrecorded?: boolean;
  /** The gas this very request was estimated at just before (./gas-estimates.ts): not asked again. */
  gas?: bigint;
}

export interface SerialSenderOptions {
  account: LocalAccount;
  client: PublicClient;
  chainId: number;
  /** Broadcast attempts for one transaction before giving up (its outcome then unknown). */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt. */
  retryDelayMs?: number;
}

/** The node refused the transaction itself (it would revert, or the key cannot pay gas). */
export class TransactionRejectedError extends Error {
  override name = "TransactionRejectedError";
}

const ALREADY_KNOWN = /already known|known transaction|already imported/i;
const NONCE_ERROR =
  /nonce too low|nonce.*(already|used)|replacement transaction underpriced|transaction can't be replaced/i;
const REJECTED =
  /execution reverted|revert|insufficient funds for gas|intrinsic gas too low|exceeds block gas limit/i;

/** How long one fee estimate serves every transaction (Base makes a block every 2 s). */
const FEE_TTL_MS = 1_000;

interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** A transaction signed ahead of its broadcast, its record under way (SerialSender.prepare). */
interface Prepared {
  gas: bigint;
  fees: Fees;
  /** Absent when the nonce could not be known ahead: the broadcast stage takes it. */
  signed?: Signed & {
    /** Whether its nonce was planned after a transaction not yet broadcast (to be confirmed). */
    planned: boolean;
    recorded: Promise<Recorded>;
  };
}

interface Signed {
  nonce: number;
  raw: Hex;
  hash: Hex;
}

/** How the owner's record of a hash (onSigned) ended. */
type Recorded = { ok: true } | { ok: false; error: unknown };

export class SerialSender {
  readonly address: Hex;
  /** The preparing stage: gas, fees, nonce, signature, record started; in queue order. */
  private preparing: Promise<unknown> = Promise.resolve();
  /** The broadcasting stage: each broadcast after the one before it; in queue order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Transactions queued and not yet broadcast (or given up): this key's load. */
  private waiting = 0;
  /** The next nonce this sender will use, when it knows better than the node's count. */
  private nextNonce: number | undefined;
  /**
   * The nonce after the last one the preparing stage signed, while the transactions ahead are
   * still on their way to the node: the next one signs with it, ahead of their broadcast.
   */
  private planned: number | undefined;
  /** Hashes of this sender's transactions by nonce, until the chain has mined past them. */
  private readonly sent = new Map<number, Hex>();
  private fees: { at: number; value: Promise<Fees> } | undefined;
  /**
   * Whether the transaction broadcast last ended in a broadcast the node took. The one queued
   * right behind it then has the next nonce without asking the node's count: a run of
   * back-to-back sends asks once, at its start (pickNonce), not once per transaction. Should
   * another process have used that nonce meanwhile, the node answers "nonce too low" and the
   * next one is taken (broadcast); any other ending makes the next one ask.
   */
  private lastSendOk = false;

  constructor(private readonly options: SerialSenderOptions) {
    this.address = options.account.address;
  }

  /** Transactions queued on this key and not yet broadcast. */
  get queued(): number {
    return this.waiting;
  }

  /**
   * Queues a transaction; resolves with its hash once the node has it (not once it is mined:
   * the next transaction goes out meanwhile). `onSigned` hears the hash before each broadcast
   * attempt (the transaction may still never land).
   *
   * Two ordered stages: preparing (gas, fees, the nonce, the signature, and the owner's record
   * of the hash started) and broadcasting (once the record is done and the transaction ahead
   * was taken by the node). A transaction is prepared while the one ahead of it is still being
   * recorded and broadcast, with the nonce after it; if that one does not reach the node with
   * its nonce, this one is signed again with the nonce the node expects, and recorded again,
   * before its own broadcast.
   */
  send(request: SendRequest, onSigned?: OnSigned, options: SendOptions = {}): Promise<Hex> {
    // Started now, beside the transactions ahead in the queue; awaited in order.
    const estimate =
      options.gas !== undefined
        ? Promise.resolve({ gas: options.gas })
        : this.estimateGas(request).then(
            (gas) => ({ gas }),
            (error: unknown) => ({ error }),
          );
    // Queued behind another: its nonce is planned after that one's (see prepare).
    const behindAnother = this.waiting > 0;
    this.waiting++;
    const prepared = this.preparing.then(() =>
      this.prepare(request, estimate, onSigned, behindAnother),
    );
    this.preparing = prepared.catch(() => undefined);
    const run = this.queue
      .then(() => this.broadcast(request, prepared, onSigned, options, behindAnother))
      .finally(() => this.waiting--);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async prepare(
    request: SendRequest,
    estimated: Promise<{ gas: bigint } | { error: unknown }>,
    onSigned: OnSigned | undefined,
    behindAnother: boolean,
  ): Promise<Prepared> {
    const early = await estimated;
    // An estimate made ahead may have depended on a transaction ahead of it: once more, in order.
    const gas = "gas" in early ? early.gas : await this.estimateGasOrRefuse(request);
    const fees = await this.currentFees();
    // Alone in the queue: nothing is on its way, the node's count is the truth. Behind another:
    // the nonce after the one planned for it, or, when there is no plan (the one ahead is
    // signed only in its broadcast stage), none yet.
    const planned = behindAnother ? this.planned : undefined;
    if (behindAnother && planned === undefined) return { gas, fees };
    const nonce = planned ?? (await this.pickNonce());
    const signed = await this.sign(request, gas, fees, nonce);
    this.planned = nonce + 1;
    return {
      gas,
      fees,
      signed: {
        ...signed,
        planned: planned !== undefined,
        recorded: this.record(onSigned, { ...signed, request }),
      },
    };
  }

  private async broadcast(
    request: SendRequest,
    preparing: Promise<Prepared>,
    onSigned: OnSigned | undefined,
    options: SendOptions,
    behindAnother: boolean,
  ): Promise<Hex> {
    const maxAttempts = this.options.maxAttempts ?? 5;
    // Read as this one starts, the one ahead being done with; true again once this one is sent.
    const followsASend = behindAnother && this.lastSendOk;
    this.lastSendOk = false;
    let prepared: Prepared;
    try {
      prepared = await preparing;
    } catch (error) {
      this.planned = undefined;
      throw error;
    }
    const { gas, fees } = prepared;
    let tx: Signed;
    let recorded: Recorded;
    const ahead = prepared.signed;
    if (ahead && (!ahead.planned || (followsASend && this.nextNonce === ahead.nonce))) {
      tx = ahead;
      recorded = await ahead.recorded;
    } else {
      // Not signed ahead, or the plan failed: the one ahead did not reach the node with the
      // nonce before this one's. Signed now with the nonce the node expects, recorded again,
      // after the record of the one signed ahead has landed: else that slower write could
      // land last and leave the ledger naming a transaction never broadcast.
      this.planned = undefined;
      if (ahead) await ahead.recorded;
      const nonce = (followsASend ? this.nextNonce : undefined) ?? (await this.pickNonce());
      tx = await this.sign(request, gas, fees, nonce);
      recorded = await this.record(onSigned, { ...tx, request });
    }
    let lastError: unknown;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (!recorded.ok) {
        console.error(
          `Could not record transaction ${tx.hash} before broadcasting it:`,
          recorded.error,
        );
        // The escrow operator's transactions are found again by their recorded hash only:
        // unrecorded, it is not sent (the nonce stays free for the next one).
        if (options.abortIfUnrecorded) {
          this.planned = undefined;
          throw recorded.error;
        }
      }
      try {
        await this.options.client.request({
          method: "eth_sendRawTransaction",
          params: [tx.raw],
        });
        return this.recordSent(tx.nonce, tx.hash);
      } catch (error) {
        lastError = error;
        const message = errorText(error);
        // The request may have reached the node before it failed: ask.
        if (ALREADY_KNOWN.test(message) || (await this.nodeKnows(tx.hash, false))) {
          return this.recordSent(tx.nonce, tx.hash);
        }
        if (NONCE_ERROR.test(message)) {
          // Someone else used this nonce (another process with the key): take the next one.
          this.nextNonce = undefined;
          this.planned = undefined;
          const nonce = Math.max(await this.pickNonce(), tx.nonce + 1);
          tx = await this.sign(request, gas, fees, nonce);
          recorded = await this.record(onSigned, { ...tx, request });
          continue;
        }
        if (REJECTED.test(message)) {
          this.planned = undefined;
          throw new TransactionRejectedError(message);
        }
        // Transport trouble: the same signed bytes again after a pause.
        await sleep((this.options.retryDelayMs ?? 200) * 2 ** (attempt - 1));
      }
    }
    // Unknown whether it was broadcast; the next send asks the node again.
    this.nextNonce = undefined;
    this.planned = undefined;
    throw lastError;
  }

  private async sign(request: SendRequest, gas: bigint, fees: Fees, nonce: number) {
    const raw = await this.options.account.signTransaction!({
      chainId: this.options.chainId,
      type: "eip1559",
      nonce,
      to: request.to,
      data: request.data,
      gas: (gas * 12n) / 10n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    return { nonce, raw, hash: keccak256(raw) };
  }

  /** The owner's record of the hash (`onSigned`), started now; never rejects. */
  private record(onSigned: OnSigned | undefined, tx: Signed & { request: SendRequest }) {
    if (!onSigned) return Promise.resolve<Recorded>({ ok: true });
    const { hash, nonce, request } = tx;
    try {
      return Promise.resolve(onSigned({ hash, from: this.address, nonce, request })).then(
        (): Recorded => ({ ok: true }),
        (error: unknown): Recorded => ({ ok: false, error }),
      );
    } catch (error) {
      return Promise.resolve<Recorded>({ ok: false, error });
    }
  }

  /** The gas `request` would take from this key now; rejects where the call would revert. */
  estimateGas(request: SendRequest): Promise<bigint> {
    return this.options.client.estimateGas({
      account: this.options.account.address,
      to: request.to,
      data: request.data,
    });
  }

  private async estimateGasOrRefuse(request: SendRequest): Promise<bigint> {
    try {
      return await this.estimateGas(request);
    } catch (error) {
      if (REJECTED.test(errorText(error))) throw new TransactionRejectedError(errorText(error));
      throw error;
    }
  }

  /** One fee estimate for every transaction of the next FEE_TTL_MS; a failed one is not kept. */
  private currentFees(): Promise<Fees> {
    const now = Date.now();
    if (!this.fees || now - this.fees.at > FEE_TTL_MS) {
      const value = this.options.client.estimateFeesPerGas() as Promise<Fees>;
      const entry = { at: now, value };
      this.fees = entry;
      value.catch(() => {
        if (this.fees === entry) this.fees = undefined;
      });
    }
    return this.fees.value;
  }

  /**
   * The node's count of this key's transactions, unless this sender has sent transactions the
   * node still holds but does not count yet (a paused or slow chain): then the one after them.
   * A transaction the node dropped (a chain reset) frees its nonce again.
   */
  private async pickNonce(): Promise<number> {
    const { client } = this.options;
    const counted = await client.getTransactionCount({
      address: this.address,
      blockTag: "pending",
    });
    for (const nonce of this.sent.keys()) if (nonce < counted) this.sent.delete(nonce);
    if (this.nextNonce === undefined || this.nextNonce <= counted) return counted;
    // Ours from `counted` on are sent but not counted. If the node lost the oldest or the
    // newest of them (a chain reset), start again from its count.
    const oldest = this.sent.get(counted);
    const newest = this.sent.get(this.nextNonce - 1);
    if (
      oldest &&
      newest &&
      (await this.nodeKnows(oldest, true)) &&
      (await this.nodeKnows(newest, true))
    ) {
      return this.nextNonce;
    }
    this.sent.clear();
    return counted;
  }

  private recordSent(nonce: number, hash: Hex): Hex {
    this.sent.set(nonce, hash);
    this.nextNonce = nonce + 1;
    this.lastSendOk = true;
    return hash;
  }

  /** Whether the node has the transaction (pending or mined); `ifUnsure` when it cannot say. */
  private async nodeKnows(hash: Hex, ifUnsure: boolean): Promise<boolean> {
    try {
      return (await transactionInNode(this.options.client, hash)) !== undefined;
    } catch {
      return ifUnsure;
    }
  }
}

export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const details = (error as { details?: unknown }).details;
    return `${error.message} ${typeof details === "string" ? details : ""}`;
  }
  return String(error);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
