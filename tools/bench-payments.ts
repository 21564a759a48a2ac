// The payments figure of `npm run bench`: N posters pay N different jobs at the same moment
// through @x402/fetch (as docs/payments.md's programmatic payer does), against the chain's own
// rate for one key's transfers measured in the same run. Settlements all go out from the
// facilitator's one gas key, one nonce at a time (lib/payments/facilitator/sender.ts), so that
// key's mined-transfer rate is the ceiling the burst is compared with.
import { createPublicClient, createWalletClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { testUsdcAbi } from "@/dev/contracts";
import { DEPLOYER_PRIVATE_KEY, LOCAL_TOKEN_ADDRESS, localChain } from "@/dev/local-chain";
import { newPaymentCase, type PaymentCase } from "@/tests/helpers/market";
import { payingFetch } from "@/tests/helpers/x402";

export interface PaymentBurstResult {
  payments: number;
  settled: number;
  seconds: number;
  perSecond: number;
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
): Promise<PaymentBurstResult> {
  const cases = await prepareCases(baseUrl, rpcUrl, count);
  const started = performance.now();
  const statuses = await Promise.all(
    cases.map(async (c) => {
      const response = await payingFetch(c.payer)(c.settleUrl(), { method: "POST" });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const settled = statuses.filter((status) => status === 200).length;
  if (settled !== count) {
    const others = statuses.filter((status) => status !== 200);
    throw new Error(`payment burst: ${settled} of ${count} settled; others ${others.join(", ")}`);
  }
  return { payments: count, settled, seconds, perSecond: count / seconds };
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
