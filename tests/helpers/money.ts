// The money invariant every payment test ends with, checked on chain and through the API:
// the poster's USDC moved exactly once or not at all, by exactly the bid, to exactly the
// agent; the job is either open with a free slot and no transfer, or paid with the one hash
// recorded (and that hash accepts).
import { expect } from "vitest";
import { createPublicClient, getAddress, http, type Hex } from "viem";
import { LOCAL_TOKEN_ADDRESS } from "@/dev/local-chain";
import { usdcAbi } from "@/lib/payments/chain/usdc-abi";

export interface MoneySnapshot {
  payer: string;
  payTo: string;
  payerBalance: bigint;
  payToBalance: bigint;
}

export function tokenOn(rpcUrl: string) {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return {
    balanceOf: (address: string) =>
      client.readContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: usdcAbi,
        functionName: "balanceOf",
        args: [getAddress(address)],
      }),
    /** Transactions that moved the token from `from` to `to` (every block). */
    transfers: async (from: string, to: string): Promise<{ txHash: Hex; value: bigint }[]> =>
      (
        await client.getContractEvents({
          address: LOCAL_TOKEN_ADDRESS,
          abi: usdcAbi,
          eventName: "Transfer",
          args: { from: getAddress(from), to: getAddress(to) },
          fromBlock: 0n,
        })
      ).map((log) => ({ txHash: log.transactionHash, value: log.args.value! })),
  };
}

export async function snapshotMoney(
  rpcUrl: string,
  payer: string,
  payTo: string,
): Promise<MoneySnapshot> {
  const token = tokenOn(rpcUrl);
  return {
    payer,
    payTo,
    payerBalance: await token.balanceOf(payer),
    payToBalance: await token.balanceOf(payTo),
  };
}

/** Waits until the job's payment is no longer pending (the reconciler's work); returns it. */
export async function settledPayment(baseUrl: string, jobId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const response = await fetch(`${baseUrl}/api/v1/jobs/${jobId}/payment`);
    last = ((await response.json()) as { data: any }).data;
    if (last === null || last.status !== "pending") return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the payment of ${jobId} is still pending: ${JSON.stringify(last)}`);
}

/**
 * Asserts the invariant for one job after everything has settled; returns which world it is.
 * `before` was taken before any payment attempt; the payee wallet must be the job's alone.
 */
export async function expectPaidOnceOrNotAtAll(
  rpcUrl: string,
  baseUrl: string,
  job: { id: string; bidAtomic: bigint },
  before: MoneySnapshot,
): Promise<"paid" | "unpaid"> {
  const payment = await settledPayment(baseUrl, job.id);
  const after = await snapshotMoney(rpcUrl, before.payer, before.payTo);
  const transfers = await tokenOn(rpcUrl).transfers(before.payer, before.payTo);
  if (after.payerBalance === before.payerBalance) {
    expect(after.payToBalance, "the payee got money the payer did not send").toBe(
      before.payToBalance,
    );
    expect(transfers, "a transfer with no balance change").toHaveLength(0);
    expect(payment === null || payment.status === "failed", JSON.stringify(payment)).toBe(true);
    return "unpaid";
  }
  expect(before.payerBalance - after.payerBalance, "the payer paid other than the bid once").toBe(
    job.bidAtomic,
  );
  expect(after.payToBalance - before.payToBalance, "the payee got other than the bid").toBe(
    job.bidAtomic,
  );
  expect(transfers, "more than one transfer").toHaveLength(1);
  expect(payment, "paid on chain but the record does not say so").toMatchObject({
    status: "succeeded",
    txHash: transfers[0]!.txHash,
  });
  return "paid";
}
