// npm run chain [-- --port N]: the local settlement chain for development.
// Hardhat's node (dev/hardhat-node.ts: chain id 31337, Cancun, ganache's deterministic
// accounts) on 127.0.0.1:8545 (CHAIN_PORT or --port), kept in .data/chain (or --data-dir: the
// chaos run keeps its own) across restarts (a journal replayed on start, dev/chain-journal.ts);
// deploys TestUSDC and funds the demo accounts on first start. Stops on Ctrl-C / SIGTERM.
import path from "node:path";
import { JournalMismatchError } from "@/dev/chain-journal";
import {
  LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
  LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS,
  LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS,
} from "@/dev/escrow";
import { startLocalNode } from "@/dev/hardhat-node";
import { getConfig } from "@/lib/platform/config";
import {
  DEMO_ACCOUNTS,
  DEPLOYER_ADDRESS,
  LOCAL_CHAIN_ID,
  LOCAL_FACILITATOR_ADDRESS,
  LOCAL_TOKEN_ADDRESS,
  deployLocalChain,
} from "@/dev/local-chain";
import { atomicToUsdc } from "@/lib/shared/money";

const HOST = "127.0.0.1";
const DATA_DIR = path.resolve(__dirname, "..", ".data", "chain");

/** `--name value` or `--name=value`, or undefined when absent. */
function flag(argv: string[], name: string): string | undefined {
  const index = argv.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index === -1) return undefined;
  const arg = argv[index] ?? "";
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[index + 1];
}

function portFromArgs(argv: string[]): number | undefined {
  const raw = flag(argv, "--port");
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`--port needs a port number, got ${raw ?? "nothing"}`);
  }
  return port;
}

/** The chain id of whatever answers JSON-RPC at `rpcUrl`, or undefined if nothing does. */
async function probeChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(2_000),
    });
    const body = (await response.json()) as { result?: string };
    return body.result ? Number(body.result) : NaN;
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === "ECONNREFUSED") return undefined;
    return NaN; // something answers, but not JSON-RPC
  }
}

async function printSummary(rpcUrl: string, deployed: boolean) {
  console.log(`Local chain ${LOCAL_CHAIN_ID} at ${rpcUrl}`);
  console.log(
    `  TestUSDC (tUSDC, EIP-712 "USD Coin Local" v2): ${LOCAL_TOKEN_ADDRESS}${deployed ? " (deployed now)" : ""}`,
  );
  console.log(
    "  Commerce Payments escrow stand-in (contracts/escrow, v1.1.0 ABI, at Base's addresses):",
  );
  console.log(`    AuthCaptureEscrow:       ${LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS}`);
  console.log(`    ERC3009PaymentCollector: ${LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS}`);
  console.log(`    OperatorRefundCollector: ${LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS}`);
  console.log(`  deployer / faucet minter (account 0): ${DEPLOYER_ADDRESS}`);
  console.log(`  facilitator gas payer (account 1):    ${LOCAL_FACILITATOR_ADDRESS}`);
  console.log(
    `  demo wallets (accounts 2-9), funded with ${atomicToUsdc(10_000_000_000n)} tUSDC at deployment:`,
  );
  for (const account of DEMO_ACCOUNTS) console.log(`    ${account.index}: ${account.address}`);
  console.log(
    "  Their private keys are ganache's well-known deterministic ones (mnemonic " +
      '"myth like bonus scare ..."): test funds only, never use them elsewhere.',
  );
}

async function main() {
  const port = portFromArgs(process.argv.slice(2)) ?? getConfig().CHAIN_PORT;
  const dataFlag = flag(process.argv.slice(2), "--data-dir");
  if (dataFlag === "") throw new Error("--data-dir needs a folder");
  const dataDir = dataFlag ? path.resolve(dataFlag) : DATA_DIR;
  const rpcUrl = `http://${HOST}:${port}`;

  const existing = await probeChainId(rpcUrl);
  if (existing !== undefined) {
    if (existing !== LOCAL_CHAIN_ID) {
      console.error(
        `Port ${port} is taken by something else (${Number.isNaN(existing) ? "not a JSON-RPC node" : `chain id ${existing}`}). ` +
          "Stop it or use --port / CHAIN_PORT.",
      );
      process.exit(1);
    }
    console.log(`A chain with id ${LOCAL_CHAIN_ID} already answers at ${rpcUrl}: using it.`);
    const result = await deployLocalChain(rpcUrl);
    await printSummary(rpcUrl, result.deployed);
    process.exit(0);
  }

  const started = Date.now();
  const node = await startLocalNode({ port, host: HOST, dataDir }).catch((error: unknown) => {
    if (error instanceof JournalMismatchError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  });
  const result = await deployLocalChain(rpcUrl);
  await printSummary(rpcUrl, result.deployed);
  const where = path.relative(process.cwd(), dataDir);
  console.log(
    node.replayedBlocks > 0
      ? `Restored ${node.replayedBlocks} blocks from ${where} in ${Date.now() - started} ms. ` +
          `Delete ${where} to start over. Ctrl-C to stop.`
      : `State is kept in ${where} (deleting it starts a new chain). Ctrl-C to stop.`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the chain...`);
    node.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
