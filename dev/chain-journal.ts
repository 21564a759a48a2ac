// How `npm run chain` keeps the local chain across restarts. Hardhat's node holds its state in
// memory only, so every change is written to `<dataDir>/journal.jsonl` as it happens: each
// mined block (its timestamp, the signed transactions it holds, its hash) and each state edit
// (hardhat_setCode, hardhat_setBalance, ...). On start the node is created with the recorded
// genesis time and the journal is replayed block by block at the recorded timestamps, so every
// transaction hash, receipt, balance and block hash comes back as it was; a replayed block whose
// hash differs stops the start with a clear message rather than serving a different chain.
// Afterwards the chain's clock is put back on the wall clock. The database's settlements and
// the chain they point at therefore survive `npm run dev` restarts together.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { keccak256, type Hex } from "viem";
import type { EIP1193Provider, RequestArguments } from "hardhat/types";

const JOURNAL_VERSION = 1;

interface Header {
  kind: "header";
  version: number;
  chainId: number;
  /** Unix seconds of block 0: the node is re-created with it so that block 0's hash repeats. */
  genesisTimestamp: number;
}

/** A transaction as it can be sent again: signed bytes, or the fields of a node-signed one. */
type JournalTx = { raw: Hex } | { send: Record<string, unknown> };

interface BlockEntry {
  kind: "block";
  number: number;
  hash: Hex;
  timestamp: number;
  txs: JournalTx[];
}

interface EditEntry {
  kind: "edit";
  method: string;
  params: unknown[];
}

type Entry = BlockEntry | EditEntry;

/** State edits replayed as they were made (time moves are implied by the block timestamps). */
const EDITS = new Set([
  "hardhat_setCode",
  "hardhat_setBalance",
  "hardhat_setNonce",
  "hardhat_setStorageAt",
]);

export interface ChainJournal {
  readonly file: string;
  readonly genesisTimestamp: number;
  /** Replays the recorded chain into a fresh node; returns the number of blocks replayed. */
  replay(provider: EIP1193Provider): Promise<number>;
  /** Called after each chain-changing request (one at a time, in order), failed ones too. */
  record(
    provider: EIP1193Provider,
    args: RequestArguments,
    result: unknown,
    failed: boolean,
  ): Promise<void>;
  close(): Promise<void>;
}

export class JournalMismatchError extends Error {}

export function openChainJournal(dataDir: string, chainId: number): ChainJournal {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, "journal.jsonl");
  const lock = lockDataDir(dataDir);
  let header: Header;
  let entries: Entry[] = [];
  if (existsSync(file)) {
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    const parsed = lines.map((line) => JSON.parse(line) as Header | Entry);
    const first = parsed[0];
    if (!first || first.kind !== "header" || first.version !== JOURNAL_VERSION) {
      lock.release();
      throw new JournalMismatchError(
        `${file} is not a chain journal this version reads (a ganache database from before the ` +
          `move to Hardhat?). Delete ${dataDir} to start a new local chain.`,
      );
    }
    if (first.chainId !== chainId) {
      lock.release();
      throw new JournalMismatchError(`${file} holds chain ${first.chainId}, not ${chainId}.`);
    }
    header = first;
    entries = parsed.slice(1) as Entry[];
  } else {
    const others = readdirSync(dataDir).filter((name) => name !== "LOCK");
    if (others.length > 0) {
      console.warn(
        `${dataDir} holds files this chain cannot read (${others.slice(0, 3).join(", ")}: ganache's ` +
          "database from before the move to Hardhat?). The local chain starts anew; payments " +
          "recorded by the app against the old chain will not be found on it.",
      );
    }
    header = {
      kind: "header",
      version: JOURNAL_VERSION,
      chainId,
      genesisTimestamp: Math.floor(Date.now() / 1000),
    };
    writeFileSync(file, `${JSON.stringify(header)}\n`);
  }

  let lastBlock = 0;
  /** Signed transactions sent but not yet seen in a block, by hash. */
  const sent = new Map<string, Hex>();
  /** evm_snapshot id → how many entries the journal had then. */
  const snapshots = new Map<string, number>();

  const append = (entry: Entry) => {
    entries.push(entry);
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  };
  const rewrite = () => {
    writeFileSync(file, [header, ...entries].map((entry) => `${JSON.stringify(entry)}\n`).join(""));
  };
  const call = <T>(provider: EIP1193Provider, method: string, params: unknown[] = []) =>
    provider.request({ method, params }) as Promise<T>;

  /** Journals every block mined since the last one journaled. */
  const syncBlocks = async (provider: EIP1193Provider) => {
    const latest = Number(await call<string>(provider, "eth_blockNumber"));
    for (let number = lastBlock + 1; number <= latest; number++) {
      const block = await call<{ hash: Hex; timestamp: Hex; transactions: Hex[] }>(
        provider,
        "eth_getBlockByNumber",
        [`0x${number.toString(16)}`, false],
      );
      const txs: JournalTx[] = [];
      for (const hash of block.transactions) {
        const raw = sent.get(hash);
        if (raw) {
          txs.push({ raw });
          sent.delete(hash);
        } else {
          txs.push({ send: await nodeSignedTransaction(provider, hash) });
        }
      }
      append({
        kind: "block",
        number,
        hash: block.hash,
        timestamp: Number(block.timestamp),
        txs,
      });
      lastBlock = number;
    }
  };

  return {
    file,
    genesisTimestamp: header.genesisTimestamp,

    async replay(provider) {
      let blocks = 0;
      let lastTimestamp = header.genesisTimestamp;
      await call(provider, "evm_setAutomine", [false]);
      for (const entry of entries) {
        if (entry.kind === "edit") {
          await call(provider, entry.method, entry.params);
          continue;
        }
        for (const tx of entry.txs) {
          if ("raw" in tx) await call(provider, "eth_sendRawTransaction", [tx.raw]);
          else await call(provider, "eth_sendTransaction", [tx.send]);
        }
        await call(provider, "evm_mine", [entry.timestamp]);
        const block = await call<{ hash: Hex; number: Hex }>(provider, "eth_getBlockByNumber", [
          "latest",
          false,
        ]);
        if (Number(block.number) !== entry.number || block.hash !== entry.hash) {
          throw new JournalMismatchError(
            `Replaying ${file}: block ${entry.number} came out as ${block.hash} (block ` +
              `${Number(block.number)}), recorded as ${entry.hash}. The journal does not match ` +
              `this node (another Hardhat version?). Delete ${dataDir} to start a new local chain.`,
          );
        }
        blocks += 1;
        lastBlock = entry.number;
        lastTimestamp = entry.timestamp;
      }
      await call(provider, "evm_setAutomine", [true]);
      // Mining at recorded times left the clock at the last one: back on the wall clock (new
      // blocks are never older than the last, so a chain that ran ahead stays just ahead). A
      // developer's own time travel (evm_increaseTime) is not carried over a restart.
      const behind = Math.floor(Date.now() / 1000) - lastTimestamp;
      if (behind > 0) await call(provider, "evm_increaseTime", [behind]);
      return blocks;
    },

    async record(provider, args, result, failed) {
      const params = (args.params ?? []) as unknown[];
      if (args.method === "eth_sendRawTransaction") {
        // A transaction that reverted under automine is mined all the same: keep it either way.
        const raw = params[0] as Hex;
        sent.set(keccak256(raw), raw);
      }
      if (failed) {
        await syncBlocks(provider);
        return;
      }
      if (args.method === "evm_snapshot") {
        await syncBlocks(provider);
        snapshots.set(String(result), entries.length);
        return;
      }
      if (args.method === "evm_revert" && result === true) {
        const length = snapshots.get(String(params[0]));
        if (length === undefined) throw new Error("evm_revert to a snapshot the journal missed");
        entries = entries.slice(0, length);
        for (const [id, at] of snapshots) if (at >= length) snapshots.delete(id);
        rewrite();
        lastBlock = Number(await call<string>(provider, "eth_blockNumber"));
        return;
      }
      await syncBlocks(provider);
      if (EDITS.has(args.method)) append({ kind: "edit", method: args.method, params });
    },

    async close() {
      lock.release();
    },
  };
}

/** One process per data directory: a second `npm run chain` on it is refused. */
function lockDataDir(dataDir: string): { release(): void } {
  const lockFile = path.join(dataDir, "LOCK");
  if (existsSync(lockFile)) {
    const pid = Number(readFileSync(lockFile, "utf8"));
    let alive = false;
    try {
      process.kill(pid, 0); // this process too: another node in it holds the directory
      alive = true;
    } catch {
      alive = false;
    }
    if (alive) {
      throw new JournalMismatchError(
        `Another process (pid ${pid}) is using ${dataDir} (npm run chain on another port?).`,
      );
    }
  }
  writeFileSync(lockFile, String(process.pid));
  return { release: () => rmSync(lockFile, { force: true }) };
}

/** A transaction the node signed itself (eth_sendTransaction from one of its accounts). */
async function nodeSignedTransaction(provider: EIP1193Provider, hash: Hex) {
  const tx = (await provider.request({
    method: "eth_getTransactionByHash",
    params: [hash],
  })) as Record<string, unknown> | null;
  if (!tx) throw new Error(`mined transaction ${hash} not found`);
  const fields: Record<string, unknown> = {
    from: tx.from,
    to: tx.to ?? undefined,
    data: tx.input,
    value: tx.value,
    gas: tx.gas,
    nonce: tx.nonce,
  };
  if (tx.maxFeePerGas !== undefined) {
    fields.maxFeePerGas = tx.maxFeePerGas;
    fields.maxPriorityFeePerGas = tx.maxPriorityFeePerGas;
  } else {
    fields.gasPrice = tx.gasPrice;
  }
  if (Array.isArray(tx.accessList) && tx.accessList.length > 0) fields.accessList = tx.accessList;
  return fields;
}
