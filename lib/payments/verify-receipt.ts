// On-chain checks of a settlement, independent of the facilitator's word:
// - verifyTransferReceipt: did this transaction move `amount` of our token from payer to payTo
//   through an EIP-3009 authorization?
// - findAuthorizationTx: was the payer's authorization nonce used, and in which transaction?
//   (reconciles a settlement left pending by a crash between broadcast and bookkeeping)
import {
  getAddress,
  isAddressEqual,
  parseEventLogs,
  TransactionReceiptNotFoundError,
  type Address,
  type BlockNumber,
  type Hex,
  type PublicClient,
} from "viem";
import { testUsdcAbi } from "./contracts";

/** The EIP-3009 and ERC-20 events we read; identical on Circle's USDC and our TestUSDC. */
const tokenEventsAbi = testUsdcAbi.filter((item) => item.type === "event");

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

type LogsClient = Pick<PublicClient, "readContract" | "getContractEvents">;

/**
 * The hash of the transaction that used `authorizer`'s EIP-3009 `nonce` on `asset`, or null
 * when the nonce has not been used (or was canceled: no transfer happened).
 *
 * Throws AuthorizationLogNotFoundError when the token says the nonce is spent but no log is
 * found from `fromBlock` (default: genesis; on Base pass the block recorded before settling,
 * public RPCs limit log ranges): never read that as "not paid".
 */
export async function findAuthorizationTx(
  client: LogsClient,
  params: { asset: Address; authorizer: Address; nonce: Hex; fromBlock?: BlockNumber },
): Promise<Hex | null> {
  const asset = getAddress(params.asset);
  const authorizer = getAddress(params.authorizer);
  const used = await client.readContract({
    address: asset,
    abi: testUsdcAbi,
    functionName: "authorizationState",
    args: [authorizer, params.nonce],
  });
  if (!used) return null;

  const range = { fromBlock: params.fromBlock ?? 0n, toBlock: "latest" as const };
  const [usedLogs, canceledLogs] = await Promise.all([
    client.getContractEvents({
      address: asset,
      abi: testUsdcAbi,
      eventName: "AuthorizationUsed",
      args: { authorizer, nonce: params.nonce },
      ...range,
    }),
    client.getContractEvents({
      address: asset,
      abi: testUsdcAbi,
      eventName: "AuthorizationCanceled",
      args: { authorizer, nonce: params.nonce },
      ...range,
    }),
  ]);
  const log = usedLogs.find((entry) => !entry.removed);
  if (log?.transactionHash) return log.transactionHash;
  if (canceledLogs.some((entry) => !entry.removed)) return null;
  throw new AuthorizationLogNotFoundError(
    `authorization ${params.nonce} of ${authorizer} is used on ${asset}, but its log was not found from block ${range.fromBlock}`,
  );
}
