// The payments figures of `npm run bench`: N posters pay N different jobs at the same moment
// through @x402/fetch (as docs/payments.md's programmatic payer does), with the facilitator's
// one gas key and then with two (FACILITATOR_PRIVATE_KEYS, a second server on the same
// database), against the chain's own rate for one key's transfers measured in the same run.
// Each key's settlements go out in nonce order, pipelined (lib/payments/facilitator/sender.ts):
// one key's burst is held to 85% of that rate, two keys' to 1.7 times it. When the two bursts
// come out alike, the keys are not what limits them (the server's own work per payment is):
// each burst also prints the server's CPU time per payment (all its threads, from /proc), a
// figure a busy machine moves far less than the rates, and the cores the burst used by whom.
import { createPublicClient, createWalletClient, http, keccak256, toBytes, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { testUsdcAbi } from "@/dev/contracts";
import {
  DEPLOYER_PRIVATE_KEY,
  LOCAL_FACILITATOR_PRIVATE_KEY,
  LOCAL_TOKEN_ADDRESS,
  localChain,
} from "@/dev/local-chain";
import { newPaymentCase, type PaymentCase } from "@/tests/helpers/market";
import { payingFetch } from "@/tests/helpers/x402";
import {
  type CpuShares,
  type CpuSnapshot,
  cpuMilliseconds,
  cpuShares,
  cpuSnapshot,
  formatShares,
} from "./bench-cpu";
import { type Goal, percent, ratioGoal, times } from "./bench-measure";

export interface PaymentBurstResult {
  payments: number;
  settled: number;
  seconds: number;
  perSecond: number;
  /** The server's CPU time per payment (user + system, every process of its group), in ms. */
  serverCpuMs?: number;
  /** The cores the burst used, by whom. */
  cpu?: CpuShares;
}

export interface ChainRateResult {
  transfers: number;
  seconds: number;
  perSecond: number;
}

/** Sets up `count` payment cases (distinct posters, agents, jobs and bids), ten at a time. */
async function prepareCases(baseUrl: string, rpcUrl: string, count: number) {
  const target = { chain: { rpcUrl }, server: { url: baseUrl } };
  const cases: PaymentCase[] = [];
  for (let start = 0; start < count; start += 10) {
    const batch = Array.from({ length: Math.min(10, count - start) }, (_, i) =>
      newPaymentCase(target, (100 + start + i) / 100),
    );
    cases.push(...(await Promise.all(batch)));
  }
  return cases;
}

/** Every poster pays at once; the clock runs from the first request to the last answer. */
export async function measurePaymentBurst(
  baseUrl: string,
  rpcUrl: string,
  count: number,
  serverPid?: number,
): Promise<PaymentBurstResult> {
  const cases = await prepareCases(baseUrl, rpcUrl, count);
  const cpuBefore = cpuSnapshot();
  const started = performance.now();
  const statuses = await Promise.all(
    cases.map(async (c) => {
      const response = await payingFetch(c.payer)(c.settleUrl(), { method: "POST" });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = serverPid === undefined ? undefined : burstCpu(cpuBefore, serverPid, count);
  const settled = statuses.filter((status) => status === 200).length;
  if (settled !== count) {
    const others = statuses.filter((status) => status !== 200);
    throw new Error(`payment burst: ${settled} of ${count} settled; others ${others.join(", ")}`);
  }
  return {
    payments: count,
    settled,
    seconds,
    perSecond: count / seconds,
    serverCpuMs: used?.serverCpuMs,
    cpu: used?.cpu,
  };
}

/** The cores used since `before`, by whom, and the server's CPU time per payment. */
function burstCpu(before: CpuSnapshot, serverPid: number, count: number) {
  const after = cpuSnapshot();
  return {
    cpu: cpuShares(before, after, serverPid),
    // From the ticks: the server's share times the burst's clock understated it, since the
    // share is over the snapshots' interval, which brackets that clock.
    serverCpuMs: cpuMilliseconds(before, after, serverPid).server / count,
  };
}

/**
 * The chain's own rate: `count` token transfers (mints) from one key, each broadcast as soon
 * as the previous one is accepted, as the settlement sender does, timed until the last is mined.
 */
export async function measureChainTransferRate(
  rpcUrl: string,
  count: number,
): Promise<ChainRateResult> {
  const account = privateKeyToAccount(DEPLOYER_PRIVATE_KEY);
  const transport = http(rpcUrl);
  const chain = localChain(rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const walletClient = createWalletClient({ account, chain, transport });
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  let nonce = await publicClient.getTransactionCount({
    address: account.address,
    blockTag: "pending",
  });
  const started = performance.now();
  const hashes: Hex[] = [];
  for (let i = 0; i < count; i++) {
    hashes.push(
      await walletClient.writeContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [recipient, 1_000_000n],
        nonce: nonce++,
      }),
    );
  }
  const receipts = await Promise.all(
    hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })),
  );
  const seconds = (performance.now() - started) / 1000;
  if (receipts.some((receipt) => receipt.status !== "success")) {
    throw new Error("a transfer of the chain-rate measurement reverted");
  }
  return { transfers: count, seconds, perSecond: count / seconds };
}

/** The two-key run's second gas key: one of its own (given ETH here), used by nothing else. */
const SECOND_FACILITATOR_KEY: Hex = keccak256(toBytes("agent-marketplace bench facilitator 2"));

async function fund(rpcUrl: string, key: Hex) {
  const address = privateKeyToAccount(key).address;
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "hardhat_setBalance",
      params: [address, `0x${(10n ** 22n).toString(16)}`],
    }),
  });
  const body = (await response.json()) as { error?: { message: string } };
  if (body.error) throw new Error(`funding the second gas key: ${body.error.message}`);
}

/** A server on the same database with more environment (the two-key run's). */
export type StartServer = (
  env: Record<string, string>,
) => Promise<{ url: string; pid: number; stop(): Promise<void> }>;

const fixed = (n: number) => n.toFixed(1);
/** Payments each server settles before its measured burst. */
const WARM_UP = 10;

/**
 * The burst with one key on `serverUrl`, the chain's own rate, and the burst with two keys
 * on a server `startServer` starts; prints them and returns the goals: one key at 85% of the
 * chain's rate at least, two keys at 1.7 times it.
 */
export async function benchPayments(options: {
  serverUrl: string;
  /** The one-key server's process (its CPU time per payment is printed). */
  serverPid?: number;
  rpcUrl: string;
  count: number;
  startServer: StartServer;
}): Promise<Goal[]> {
  const { serverUrl, serverPid, rpcUrl, count } = options;
  // Each server first settles a few payments unmeasured: its settle route loaded and compiled,
  // so that neither burst pays for a cold start (the two-key server is a new process).
  const warmUp = (url: string) => measurePaymentBurst(url, rpcUrl, Math.min(WARM_UP, count));
  await warmUp(serverUrl);
  const oneKey = await measurePaymentBurst(serverUrl, rpcUrl, count, serverPid);
  const rate = await measureChainTransferRate(rpcUrl, count);
  await fund(rpcUrl, SECOND_FACILITATOR_KEY);
  const twoKeyServer = await options.startServer({
    FACILITATOR_PRIVATE_KEY: "",
    FACILITATOR_PRIVATE_KEYS: `${LOCAL_FACILITATOR_PRIVATE_KEY},${SECOND_FACILITATOR_KEY}`,
  });
  let twoKeys: PaymentBurstResult;
  try {
    await warmUp(twoKeyServer.url);
    twoKeys = await measurePaymentBurst(twoKeyServer.url, rpcUrl, count, twoKeyServer.pid);
  } finally {
    await twoKeyServer.stop();
  }
  const burst = (label: string, result: PaymentBurstResult) =>
    `payments, ${label}: ${result.settled}/${result.payments} settled in ${fixed(result.seconds)} s = ` +
    `${fixed(result.perSecond)} payments/s (${percent(result.perSecond / rate.perSecond)} of the chain's rate)` +
    (result.serverCpuMs === undefined
      ? ""
      : `; server CPU ${fixed(result.serverCpuMs)} ms per payment`) +
    (result.cpu ? `\n    cores used: ${formatShares(result.cpu)}` : "");
  console.log(
    `the chain alone: ${rate.transfers} transfers from one key in ${fixed(rate.seconds)} s = ` +
      `${fixed(rate.perSecond)} transfers/s\n${burst("one gas key", oneKey)}\n${burst("two gas keys", twoKeys)}`,
  );
  return [
    ratioGoal(
      "payments burst, one gas key, vs the chain's one-key transfer rate",
      oneKey.perSecond / rate.perSecond,
      {
        atLeast: 0.85,
      },
    ),
    ratioGoal(
      "payments burst, two gas keys, vs the chain's one-key transfer rate",
      twoKeys.perSecond / rate.perSecond,
      { atLeast: 1.7 },
      times,
    ),
  ];
}
