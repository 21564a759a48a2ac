// The local chain's node: Hardhat's EDR provider (hardhat 2.29, the Cancun hardfork) in this
// process, behind a plain HTTP JSON-RPC server on 127.0.0.1. `npm run chain` (scripts/chain.ts)
// and every test chain (tests/helpers/chain.ts: vitest, Playwright, the benchmark) start it.
//
// In process rather than `hardhat node` as a child: a provider is ready in about 0.2 s, a test
// run starts dozens, several can share one process, and stopping one closes its sockets at
// once. We load the provider and Hardhat's own JSON-RPC request handler (its error shapes,
// revert data) from Hardhat's internal modules; the version is pinned exactly in package.json,
// and dev/local-chain.test.ts checks what we rely on. Development and test machinery only:
// nothing in lib/ or app/ imports this module.
import { EventEmitter } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { JsonRpcHandler } from "hardhat/internal/hardhat-network/jsonrpc/handler";
import { createHardhatNetworkProvider } from "hardhat/internal/hardhat-network/provider/provider";
import type { EIP1193Provider, RequestArguments } from "hardhat/types";
import { GANACHE_PRIVATE_KEYS, LOCAL_CHAIN_ID } from "./local-chain";
import { type ChainJournal, openChainJournal } from "./chain-journal";

/** The EVM rules the local chain runs: Cancun (PUSH0, transient storage, MCOPY). */
export const LOCAL_HARDFORK = "cancun";
/** ETH each of the ten accounts starts with (10,000 ETH, as ganache gave). */
export const LOCAL_ACCOUNT_BALANCE_WEI = 10_000n * 10n ** 18n;
export const LOCAL_BLOCK_GAS_LIMIT = 30_000_000;

export interface LocalNodeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** 31337 unless given (a stand-in for another network's RPC in start-up checks). */
  chainId?: number;
  /**
   * A directory that keeps the chain across restarts (scripts/chain.ts: `.data/chain`): every
   * block and state edit is journaled there and replayed on the next start. In memory if absent.
   */
  dataDir?: string;
}

export interface LocalNode {
  rpcUrl: string;
  port: number;
  /** How many recorded blocks were replayed at start (0 for a new or in-memory chain). */
  replayedBlocks: number;
  stop(): Promise<void>;
}

/** The provider's settings for the local chain: automine, FIFO mempool, the ten known keys. */
export function localProviderConfig(chainId: number = LOCAL_CHAIN_ID, initialDate?: Date) {
  return {
    hardfork: LOCAL_HARDFORK,
    chainId,
    networkId: chainId,
    blockGasLimit: LOCAL_BLOCK_GAS_LIMIT,
    minGasPrice: 0n,
    automine: true,
    intervalMining: 0,
    // Transactions leave a paused pool in the order they came (a journal replays them so).
    mempoolOrder: "fifo" as const,
    chains: new Map(),
    genesisAccounts: GANACHE_PRIVATE_KEYS.map((privateKey) => ({
      privateKey,
      balance: LOCAL_ACCOUNT_BALANCE_WEI,
    })),
    allowUnlimitedContractSize: false,
    throwOnTransactionFailures: true,
    throwOnCallFailures: true,
    // Automine makes a block per transaction; without this each one would be a second past the
    // last, so a burst ran the chain's clock ahead of the wall clock (a second per transaction:
    // 300 of them and an authorization signed for 300 s expired in chain time). Base's blocks
    // come every 2 s on the real clock.
    allowBlocksWithSameTimestamp: true,
    initialDate,
    enableTransientStorage: true,
    enableRip7212: false,
  };
}

/** Starts a node; resolves once its RPC answers. */
export async function startLocalNode(options: LocalNodeOptions = {}): Promise<LocalNode> {
  const chainId = options.chainId ?? LOCAL_CHAIN_ID;
  const journal: ChainJournal | undefined = options.dataDir
    ? openChainJournal(options.dataDir, chainId)
    : undefined;
  const edr = await createHardhatNetworkProvider(
    localProviderConfig(chainId, journal ? new Date(journal.genesisTimestamp * 1000) : undefined),
    { enabled: false },
  );
  let provider: EIP1193Provider = edr;
  let journaling: JournalingProvider | undefined;
  let replayedBlocks = 0;
  if (journal) {
    try {
      replayedBlocks = await journal.replay(edr);
    } catch (error) {
      await journal.close();
      throw error;
    }
    provider = journaling = new JournalingProvider(edr, journal);
  }

  const handler = new JsonRpcHandler(provider);
  const server = http.createServer((req, res) => void handler.handleHttp(req, res));
  // Idle keep-alive sockets are closed by the clients (undici: after 4 s), never by us: Node's
  // default 5 s let a client reuse a socket the server was closing, now and then, after a busy
  // event loop had kept it from reading the FIN (ECONNRESET on the next request).
  server.keepAliveTimeout = 10 * 60_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await journal?.close();
    throw error;
  }
  const { port, address } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await journaling?.idle();
      await journal?.close();
    })();
    return stopped;
  };
  return { rpcUrl: `http://${address}:${port}`, port, replayedBlocks, stop };
}

/** Methods that change the chain: run one at a time and journaled in order. */
const MUTATING = new Set([
  "eth_sendRawTransaction",
  "eth_sendTransaction",
  "evm_mine",
  "hardhat_mine",
  "evm_setAutomine",
  "evm_setIntervalMining",
  "evm_increaseTime",
  "evm_setNextBlockTimestamp",
  "evm_snapshot",
  "evm_revert",
  "hardhat_setCode",
  "hardhat_setBalance",
  "hardhat_setNonce",
  "hardhat_setStorageAt",
  "hardhat_dropTransaction",
  "hardhat_reset",
]);

/** The EDR provider with every chain change written to the journal as it happens. */
class JournalingProvider extends EventEmitter implements EIP1193Provider {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly inner: EIP1193Provider,
    private readonly journal: ChainJournal,
  ) {
    super();
  }

  /** Resolves once every chain change sent so far is journaled. */
  idle(): Promise<unknown> {
    return this.queue;
  }

  request(args: RequestArguments): Promise<unknown> {
    if (!MUTATING.has(args.method)) return this.inner.request(args);
    const params = (args.params ?? []) as unknown[];
    if (
      args.method === "hardhat_reset" ||
      (args.method === "evm_setIntervalMining" && params[0] !== 0)
    ) {
      // A reset would need the journal rewritten from nothing, and blocks mined on a timer
      // outside any request could not be ordered against the edits around them.
      return Promise.reject(
        new Error(`${args.method} is not supported on a chain kept on disk (npm run chain)`),
      );
    }
    const run = this.queue.then(async () => {
      let outcome: { result: unknown } | { error: unknown };
      try {
        outcome = { result: await this.inner.request(args) };
      } catch (error) {
        outcome = { error };
      }
      if ("error" in outcome) {
        await this.journal.record(this.inner, args, undefined, true);
        throw outcome.error;
      }
      await this.journal.record(this.inner, args, outcome.result, false);
      return outcome.result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
