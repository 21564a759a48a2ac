// npm run reclaim -- --payment <paymentInfoHash> [--network local|base] [--rpc <url>]
//                    [--from-block <n>] [--dry-run]
// For a poster whose protected payment is still held in the Commerce Payments escrow after its
// authorization expiry (the job's payment view: escrow.heldUntil): takes it back with the
// escrow's own reclaim(paymentInfo), sent from the payer's key, read from PAYER_PRIVATE_KEY (the
// environment, never the command line, which other users see in ps). Needs neither our server
// nor our database nor our configuration: the PaymentInfo comes from the escrow's own
// PaymentAuthorized event for that hash, the rest from the escrow's paymentState.
// Exit codes: 0 reclaimed (with --dry-run: would be), 1 nothing to do or refused, 2 bad usage.
import { parseArgs } from "node:util";
import {
  type Address,
  BaseError,
  type Chain,
  createPublicClient,
  createWalletClient,
  encodeEventTopics,
  formatLog,
  formatUnits,
  type Hex,
  http,
  isAddressEqual,
  numberToHex,
  parseEventLogs,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { base } from "viem/chains";
import { COMMERCE_PAYMENTS_V1_1 } from "@/lib/payments/chain/escrow-deployments";
import { DEFAULT_LOCAL_RPC_URL, localChain } from "@/lib/payments/chain/local-network";
import { LOG_RANGE_BLOCKS } from "@/lib/payments/chain/verify-receipt";
import { escrowAbi } from "@/lib/payments/escrow/abi";
import { type PaymentInfo, paymentInfoHash } from "@/lib/payments/escrow/payment-info";

const USAGE = `usage: npm run reclaim -- --payment <paymentInfoHash>
         [--network local|base] [--rpc <url>] [--from-block <n>] [--dry-run]
  with the payer's key in the environment, PAYER_PRIVATE_KEY (read -rs PAYER_PRIVATE_KEY &&
  export PAYER_PRIVATE_KEY: neither echoed nor kept in the shell's history)
  --payment     the payment's hash in the escrow (the job's payment view: escrow.paymentInfoHash)
  --network     local (default) or base
  --rpc         JSON-RPC URL; default ${DEFAULT_LOCAL_RPC_URL} on local, BASE_RPC_URL on base
  --from-block  the oldest block to search for the payment (default 0 on local; required on
                base: the block of the payment's authorization, or any block before it)
  --dry-run     check and explain, send nothing (PAYER_PRIVATE_KEY optional)`;

/** Bad usage: exit 2. */
class UsageError extends Error {}
/** Nothing to do, or refused: exit 1. */
class Refusal extends Error {}

const HASH = /^0x[0-9a-fA-F]{64}$/;
const usdc = (atomic: bigint) => `${formatUnits(atomic, 6)} USDC`;
const isoTime = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

interface Options {
  payment: Hex;
  network: "local" | "base";
  chain: Chain;
  fromBlock: bigint | undefined;
  dryRun: boolean;
  payerKey: Hex | undefined;
}

function readOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        payment: { type: "string" },
        network: { type: "string", default: "local" },
        rpc: { type: "string" },
        "from-block": { type: "string" },
        "dry-run": { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const payment = values.payment;
  if (!payment || !HASH.test(payment)) {
    throw new UsageError("--payment must be the payment's hash: 0x and 64 hex digits");
  }
  const network = values.network;
  if (network !== "local" && network !== "base") {
    throw new UsageError(`--network must be local or base, not "${network}"`);
  }
  const rpc =
    values.rpc ?? (network === "local" ? DEFAULT_LOCAL_RPC_URL : env.BASE_RPC_URL || undefined);
  if (!rpc) throw new UsageError("on base, give --rpc <url> or set BASE_RPC_URL");
  const fromText = values["from-block"];
  if (fromText !== undefined && !/^\d+$/.test(fromText)) {
    throw new UsageError("--from-block must be a block number");
  }
  if (network === "base" && fromText === undefined) {
    // Base has tens of millions of blocks: searching them all back would take hours.
    throw new UsageError(
      "on base, give --from-block: the block of the payment's authorization (its transaction is " +
        "the payment view's txHash; or your USDC transfer to the escrow's collector on a block " +
        "explorer), or any block before it",
    );
  }
  const payerKey = env.PAYER_PRIVATE_KEY || undefined;
  if (payerKey !== undefined && !HASH.test(payerKey)) {
    throw new UsageError("PAYER_PRIVATE_KEY must be 0x and 64 hex digits");
  }
  if (!payerKey && !values["dry-run"]) {
    throw new UsageError(
      "set PAYER_PRIVATE_KEY in the environment (the payer's key; never on the command line)",
    );
  }
  const chain: Chain =
    network === "local" ? localChain(rpc) : { ...base, rpcUrls: { default: { http: [rpc] } } };
  return {
    payment: payment as Hex,
    network,
    chain,
    fromBlock: fromText === undefined ? undefined : BigInt(fromText),
    dryRun: values["dry-run"],
    payerKey: payerKey as Hex | undefined,
  };
}

type EscrowEventName =
  | "PaymentAuthorized"
  | "PaymentCaptured"
  | "PaymentVoided"
  | "PaymentReclaimed"
  | "PaymentRefunded";
const EVENT_NAMES: EscrowEventName[] = [
  "PaymentAuthorized",
  "PaymentCaptured",
  "PaymentVoided",
  "PaymentReclaimed",
  "PaymentRefunded",
];

function paymentLogsParser(client: PublicClient, escrow: Address, payment: Hex) {
  // One eth_getLogs per window for all of the payment's events: topic 0 any of them, topic 1
  // the payment's hash (viem's getLogs cannot filter an indexed argument across several events).
  const topic0 = EVENT_NAMES.map(
    (eventName) => encodeEventTopics({ abi: escrowAbi, eventName })[0],
  );
  return async (fromBlock: bigint, toBlock: bigint) => {
    const raw = await client.request({
      method: "eth_getLogs",
      params: [
        {
          address: escrow,
          topics: [topic0, payment],
          fromBlock: numberToHex(fromBlock),
          toBlock: numberToHex(toBlock),
        },
      ],
    });
    return parseEventLogs({
      abi: escrowAbi,
      logs: raw.map((log) => formatLog(log)),
      strict: true,
    }).filter((log) => !log.removed);
  };
}

type PaymentLog = Awaited<ReturnType<ReturnType<typeof paymentLogsParser>>>[number];

/**
 * The payment's events, oldest first: searched backwards from `head` in windows of
 * LOG_RANGE_BLOCKS (public RPCs refuse wide ranges), down to the window holding its
 * PaymentAuthorized or to `fromBlock`.
 */
async function paymentHistory(
  client: PublicClient,
  escrow: Address,
  payment: Hex,
  fromBlock: bigint,
  head: bigint,
): Promise<PaymentLog[]> {
  const logsIn = paymentLogsParser(client, escrow, payment);
  const found: PaymentLog[] = [];
  for (let to = head; to >= fromBlock; to -= LOG_RANGE_BLOCKS) {
    const from = to - LOG_RANGE_BLOCKS + 1n > fromBlock ? to - LOG_RANGE_BLOCKS + 1n : fromBlock;
    const logs = await logsIn(from, to);
    found.unshift(...logs);
    if (logs.some((log) => log.eventName === "PaymentAuthorized") || from === fromBlock) break;
  }
  return found;
}

function describeEvent(log: PaymentLog): string {
  const where = `block ${log.blockNumber}, tx ${log.transactionHash}`;
  switch (log.eventName) {
    case "PaymentAuthorized":
      return `authorized: ${usdc(log.args.amount)} into escrow (${where})`;
    case "PaymentCaptured":
      return `captured: ${usdc(log.args.amount)} released to the receiver (${where})`;
    case "PaymentVoided":
      return `voided by the operator: ${usdc(log.args.amount)} returned to the payer (${where})`;
    case "PaymentReclaimed":
      return `reclaimed by the payer: ${usdc(log.args.amount)} returned (${where})`;
    case "PaymentRefunded":
      return `refunded by the operator: ${usdc(log.args.amount)} returned to the payer (${where})`;
  }
}

/** Why nothing is held any more, from the payment's events and what is still refundable. */
function whyNothingHeld(history: PaymentLog[], refundable: bigint): string {
  const ended = history.findLast(
    (log) => log.eventName === "PaymentReclaimed" || log.eventName === "PaymentVoided",
  );
  if (ended?.eventName === "PaymentReclaimed") {
    return `it was already reclaimed in ${ended.transactionHash}`;
  }
  if (ended?.eventName === "PaymentVoided") {
    return `the operator voided it: the rest went back to the payer in ${ended.transactionHash}`;
  }
  if (refundable > 0n) {
    return `it was captured: released to the receiver (${usdc(refundable)} of it still refundable by the operator, not by you)`;
  }
  return "it was captured, then refunded by the operator";
}

async function reclaim(options: Options): Promise<void> {
  const { chain, payment } = options;
  const transport = http(chain.rpcUrls.default.http[0], { retryCount: 2 });
  const client = createPublicClient({ chain, transport }) as PublicClient;
  const escrow = COMMERCE_PAYMENTS_V1_1.authCaptureEscrow;

  const chainId = await client.getChainId();
  if (chainId !== chain.id) {
    throw new Refusal(
      `the RPC at ${chain.rpcUrls.default.http[0]} is chain ${chainId}, not ${options.network} (${chain.id})`,
    );
  }
  const head = await client.getBlock({ blockTag: "latest" });
  const fromBlock = options.fromBlock ?? 0n;
  console.log(
    `Payment ${payment} in the escrow ${escrow} on ${options.network} (chain ${chain.id});` +
      ` searching its events in blocks ${fromBlock}..${head.number}`,
  );
  const history = await paymentHistory(client, escrow, payment, fromBlock, head.number);
  const authorized = history.find((log) => log.eventName === "PaymentAuthorized");
  if (authorized?.eventName !== "PaymentAuthorized") {
    if (history.length > 0) {
      throw new Refusal(
        `found later events of this payment but not its authorization: give an earlier --from-block than ${fromBlock}`,
      );
    }
    throw new Refusal(
      `no such payment: the escrow authorized none with this hash in blocks ${fromBlock}..${head.number}` +
        ` (check the hash, the network${options.network === "base" ? " and --from-block" : ""})`,
    );
  }
  const info: PaymentInfo = { ...authorized.args.paymentInfo };
  // The escrow indexes the event by this hash; recomputing it checks the terms we will send.
  if (paymentInfoHash(info, escrow, chain.id).toLowerCase() !== payment.toLowerCase()) {
    throw new Refusal("the PaymentInfo in the escrow's event does not hash to this payment");
  }
  for (const log of history) console.log(`  ${describeEvent(log)}`);
  console.log(
    `  payer ${info.payer}, receiver ${info.receiver}, operator ${info.operator}` +
      `\n  reclaimable by the payer from ${isoTime(BigInt(info.authorizationExpiry))} (authorizationExpiry)`,
  );

  const payer = options.payerKey ? privateKeyToAccount(options.payerKey) : undefined;
  if (payer && !isAddressEqual(payer.address, info.payer)) {
    throw new Refusal(
      `refused: PAYER_PRIVATE_KEY is the key of ${payer.address}, and only the payer ${info.payer} can reclaim this payment`,
    );
  }
  if (!payer) console.log("  (no PAYER_PRIVATE_KEY: whose payment it is was not checked)");

  const [, held, refundable] = await client.readContract({
    address: escrow,
    abi: escrowAbi,
    functionName: "paymentState",
    args: [payment],
    blockNumber: head.number,
  });
  if (held === 0n) {
    throw new Refusal(
      `nothing to do: nothing of this payment is held; ${whyNothingHeld(history, refundable)}`,
    );
  }
  console.log(`  held now: ${usdc(held)} (chain time ${isoTime(head.timestamp)})`);
  if (head.timestamp < BigInt(info.authorizationExpiry)) {
    const hours = (Number(BigInt(info.authorizationExpiry) - head.timestamp) / 3600).toFixed(1);
    throw new Refusal(
      `too early: reclaimable from ${isoTime(BigInt(info.authorizationExpiry))} (in ${hours} h by the chain's clock);` +
        " until then the marketplace releases it to the agent or returns it to you",
    );
  }
  if (!payer) {
    console.log(`Dry run: reclaimable now, ${usdc(held)} would return to ${info.payer}.`);
    return;
  }
  if ((await client.getBalance({ address: payer.address })) === 0n) {
    throw new Refusal(`refused: ${payer.address} has no ETH on ${options.network} to pay the gas`);
  }
  const { request } = await client.simulateContract({
    account: payer,
    address: escrow,
    abi: escrowAbi,
    functionName: "reclaim",
    args: [info],
  });
  if (options.dryRun) {
    console.log(`Dry run: reclaim would return ${usdc(held)} to ${info.payer}; nothing sent.`);
    return;
  }
  const wallet = createWalletClient({ account: payer, chain, transport });
  const txHash = await wallet.writeContract(request);
  console.log(`Sent reclaim: ${txHash}`);
  const receipt = await client.waitForTransactionReceipt({ hash: txHash, timeout: 180_000 });
  if (receipt.status !== "success") throw new Refusal(`the reclaim ${txHash} reverted`);
  const [reclaimed] = parseEventLogs({
    abi: escrowAbi,
    eventName: "PaymentReclaimed",
    logs: receipt.logs,
  });
  const amount = reclaimed?.args.amount ?? held;
  console.log(
    `Reclaimed ${usdc(amount)} to ${info.payer} in ${txHash} (block ${receipt.blockNumber}).`,
  );
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = readOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  try {
    await reclaim(options);
    return 0;
  } catch (error) {
    if (error instanceof Refusal) console.error(error.message);
    else if (error instanceof BaseError) console.error(`failed: ${error.shortMessage}`);
    else console.error(`failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
