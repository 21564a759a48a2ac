// On-chain checks of a settlement, independent of the facilitator's word:
// - verifyTransferReceipt: did this transaction move `amount` of our token from payer to payTo
//   through an EIP-3009 authorization?
// - findAuthorizationTx: was the payer's authorization nonce used, and in which transaction?
//   (reconciles a settlement left pending by a crash, a lost response or a slow chain)
import {
  getAddress,
  isAddressEqual,
  parseEventLogs,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { usdcAbi } from "./usdc-abi";

/** The EIP-3009 and ERC-20 events we read; identical on Circle's USDC and our TestUSDC. */
const tokenEventsAbi = usdcAbi.filter((item) => item.type === "event");

export type ReceiptCheck = { ok: true; blockNumber: bigint } | { ok: false; reason: string };

type ReceiptClient = Pick<PublicClient, "getTransactionReceipt">;

export async function verifyTransferReceipt(
  client: ReceiptClient,
  expected: {
    txHash: Hex;
    asset: Address;
    from: Address;
    to: Address;
    amountAtomic: bigint;
    /** When given, the AuthorizationUsed event must carry this EIP-3009 nonce. */
    nonce?: Hex;
  },
): Promise<ReceiptCheck> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(expected.txHash)) {
    return { ok: false, reason: "not a transaction hash" };
  }
  let receipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: expected.txHash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) {
      return { ok: false, reason: "transaction not found or not yet mined" };
    }
    throw error;
  }
  if (receipt.status !== "success") return { ok: false, reason: "transaction reverted" };

  const tokenLogs = receipt.logs.filter((log) => isAddressEqual(log.address, expected.asset));
  if (tokenLogs.length === 0) return { ok: false, reason: "transaction did not touch the token" };
  const events = parseEventLogs({ abi: tokenEventsAbi, logs: tokenLogs, strict: true });

  const authorized = events.some(
    (event) =>
      event.eventName === "AuthorizationUsed" &&
      isAddressEqual(event.args.authorizer, expected.from) &&
      (expected.nonce === undefined ||
        event.args.nonce.toLowerCase() === expected.nonce.toLowerCase()),
  );
  if (!authorized) {
    return {
      ok: false,
      reason:
        expected.nonce === undefined
          ? "no EIP-3009 authorization by the payer in this transaction"
          : "no EIP-3009 authorization by the payer with this nonce in this transaction",
    };
  }

  const transfers = events.flatMap((event) => (event.eventName === "Transfer" ? [event.args] : []));
  if (
    transfers.some(
      (t) =>
        isAddressEqual(t.from, expected.from) &&
        isAddressEqual(t.to, expected.to) &&
        t.value === expected.amountAtomic,
    )
  ) {
    return { ok: true, blockNumber: receipt.blockNumber };
  }
  const fromPayer = transfers.filter((t) => isAddressEqual(t.from, expected.from));
  if (fromPayer.length === 0) return { ok: false, reason: "no transfer from the payer" };
  if (!fromPayer.some((t) => isAddressEqual(t.to, expected.to))) {
    return { ok: false, reason: "the transfer went to another address" };
  }
  return { ok: false, reason: "the transfer amount differs" };
}

/** `authorizationState` is true but no AuthorizationUsed/Canceled log was found in the range. */
export class AuthorizationLogNotFoundError extends Error {
  override name = "AuthorizationLogNotFoundError";
}

type LogsClient = Pick<PublicClient, "readContract" | "getContractEvents" | "getBlock">;

/** Blocks per eth_getLogs call: public RPCs refuse wide ranges (Base's: a few thousand). */
export const LOG_RANGE_BLOCKS = 1_000n;

/** Whether `authorizer`'s EIP-3009 `nonce` is used (or canceled) on `asset`, at `blockNumber`. */
export async function isAuthorizationUsed(
  client: Pick<PublicClient, "readContract">,
  params: { asset: Address; authorizer: Address; nonce: Hex; blockNumber?: bigint },
): Promise<boolean> {
  return client.readContract({
    address: getAddress(params.asset),
    abi: usdcAbi,
    functionName: "authorizationState",
    args: [getAddress(params.authorizer), params.nonce],
    ...(params.blockNumber !== undefined ? { blockNumber: params.blockNumber } : {}),
  });
}

/** What the token's logs say became of a used authorization. */
export type AuthorizationLog = { kind: "used"; txHash: Hex } | { kind: "canceled" };

/**
 * For an authorization the token already reports used: the log that used it (with its
 * transaction) or canceled it. Searches from `fromBlock` (the block recorded when the
 * settlement slot was claimed; the transfer cannot be older) to `toBlock` in windows of
 * LOG_RANGE_BLOCKS, and stops after the first window that ends past `validBefore` by block
 * time (the transfer cannot be younger).
 *
 * Throws AuthorizationLogNotFoundError when no log is found: never read that as "not paid".
 */
export async function findAuthorizationLog(
  client: LogsClient,
  params: {
    asset: Address;
    authorizer: Address;
    nonce: Hex;
    fromBlock: bigint;
    toBlock: bigint;
    validBefore: bigint;
  },
): Promise<AuthorizationLog> {
  const asset = getAddress(params.asset);
  const authorizer = getAddress(params.authorizer);
  for (let from = params.fromBlock; from <= params.toBlock; from += LOG_RANGE_BLOCKS) {
    const last = from + LOG_RANGE_BLOCKS - 1n;
    const to = last < params.toBlock ? last : params.toBlock;
    const range = { fromBlock: from, toBlock: to };
    const [usedLogs, canceledLogs] = await Promise.all([
      client.getContractEvents({
        address: asset,
        abi: usdcAbi,
        eventName: "AuthorizationUsed",
        args: { authorizer, nonce: params.nonce },
        ...range,
      }),
      client.getContractEvents({
        address: asset,
        abi: usdcAbi,
        eventName: "AuthorizationCanceled",
        args: { authorizer, nonce: params.nonce },
        ...range,
      }),
    ]);
    const used = usedLogs.find((entry) => !entry.removed && entry.transactionHash);
    if (used?.transactionHash) return { kind: "used", txHash: used.transactionHash };
    if (canceledLogs.some((entry) => !entry.removed)) return { kind: "canceled" };
    if (to === params.toBlock) break;
    const end = await client.getBlock({ blockNumber: to });
    if (end.timestamp > params.validBefore) break;
  }
  throw new AuthorizationLogNotFoundError(
    `authorization ${params.nonce} of ${authorizer} is used on ${asset}, but no log of it was found in blocks ${params.fromBlock}..${params.toBlock}`,
  );
}
