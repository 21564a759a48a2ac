// The escrow operator: our server's key, the only one the escrow lets authorize, capture and
// void these payments. Its transactions go through one ordered queue per process (the same
// SerialSender the self-hosted facilitator uses), each hash heard before the broadcast so the
// ledger can record it first.
import "server-only";
import {
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  type Hex,
  type TransactionReceipt,
  WaitForTransactionReceiptTimeoutError,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { getChainClient } from "../chain/client";
import { confirmationTimeoutMs, getSettlementNetwork } from "../chain/network";
import { GasEstimates } from "../facilitator/gas-estimates";
import { ReceiptWatcher } from "../facilitator/receipts";
import { type OnSigned, SerialSender } from "../facilitator/sender";
import { escrowAbi } from "./abi";
import type { PaymentInfo } from "./payment-info";
import { type EscrowSettings, getEscrowSettings } from "./settings";

export type OperatorCall =
  | { kind: "authorize"; info: PaymentInfo; amount: bigint; collector: Hex; signature: Hex }
  | { kind: "capture"; info: PaymentInfo; amount: bigint; fee: bigint; feeReceiver: Hex }
  | { kind: "void"; info: PaymentInfo };

export function encodeOperatorCall(call: OperatorCall): Hex {
  switch (call.kind) {
    case "authorize":
      return encodeFunctionData({
        abi: escrowAbi,
        functionName: "authorize",
        args: [call.info, call.amount, call.collector, call.signature],
      });
    case "capture":
      return encodeFunctionData({
        abi: escrowAbi,
        functionName: "capture",
        args: [call.info, call.amount, call.fee, call.feeReceiver],
      });
    case "void":
      return encodeFunctionData({ abi: escrowAbi, functionName: "void", args: [call.info] });
  }
}

interface Operator {
  sender: SerialSender;
  /** Each authorize's simulation is its gas estimate, kept for its send (facilitator/gas-estimates.ts). */
  estimates: GasEstimates;
  /** The operator's receipts, awaited together (facilitator/receipts.ts). */
  receipts: ReceiptWatcher;
}

function operatorOf(settings: EscrowSettings): Operator {
  const cache = globalThis as typeof globalThis & { __escrowOperator?: Operator };
  if (!cache.__escrowOperator) {
    const client = getChainClient();
    const sender = new SerialSender({
      account: privateKeyToAccount(settings.operatorKey),
      client,
      chainId: getSettlementNetwork().chain.id,
    });
    cache.__escrowOperator = {
      sender,
      estimates: new GasEstimates((request) => sender.estimateGas(request)),
      receipts: new ReceiptWatcher(client, client.pollingInterval),
    };
  }
  return cache.__escrowOperator;
}

const requestOf = (settings: EscrowSettings, call: OperatorCall) => ({
  to: settings.escrow,
  data: encodeOperatorCall(call),
});

/** Sends the call; `onSigned` hears its hash before the broadcast. Resolves with the hash. */
export function sendOperatorCall(
  settings: EscrowSettings,
  call: OperatorCall,
  onSigned?: OnSigned,
  options?: { abortIfUnrecorded?: boolean },
): Promise<Hex> {
  const { sender, estimates } = operatorOf(settings);
  const request = requestOf(settings, call);
  return sender.send(request, onSigned, { ...options, gas: estimates.take(request) });
}

/**
 * The call run against the chain's state without sending it: undefined when it would
 * succeed, else the escrow's custom error name (or the revert's text). It runs as the call's
 * gas estimate, whose figure its send then takes; only a refused estimate also runs the call
 * (eth_call), whose revert says why.
 */
export async function simulateOperatorCall(
  settings: EscrowSettings,
  call: OperatorCall,
): Promise<string | undefined> {
  const request = requestOf(settings, call);
  try {
    await operatorOf(settings).estimates.simulate(request);
    return undefined;
  } catch (error) {
    const reverted = await revertOf(settings, request);
    if (reverted !== undefined) return reverted;
    throw error;
  }
}

/** Why the call reverts, run as an eth_call from the operator; undefined when it does not. */
async function revertOf(
  settings: EscrowSettings,
  request: { to: Hex; data: Hex },
): Promise<string | undefined> {
  try {
    await getChainClient().call({ account: settings.operator, ...request });
    return undefined;
  } catch (error) {
    const reverted =
      error instanceof BaseError
        ? error.walk((e) => e instanceof ContractFunctionRevertedError)
        : undefined;
    if (reverted instanceof ContractFunctionRevertedError) {
      return reverted.data?.errorName ?? reverted.reason ?? "reverted";
    }
    const text = error instanceof Error ? error.message : String(error);
    if (/revert/i.test(text)) return decodeRevert(text);
    throw error;
  }
}

function decodeRevert(text: string): string {
  return text.split("\n")[0]!.slice(0, 200);
}

/** The operator's wait for a receipt when no self-hosted facilitator sets one. */
const OPERATOR_CONFIRMATION_TIMEOUT_MS = 20_000;

/**
 * The receipt, or null when none arrives within `timeoutMs` (by default the confirmation
 * timeout a request waits before answering "pending"; the outcome is then unknown). Awaited
 * with the operator's other transactions: one watcher reads each block once for all of them.
 */
export async function receiptWithin(
  hash: Hex,
  timeoutMs: number = confirmationTimeoutMs(OPERATOR_CONFIRMATION_TIMEOUT_MS),
): Promise<TransactionReceipt | null> {
  const settings = getEscrowSettings();
  if (!settings) throw new Error("no escrow operator is configured: it has no transactions");
  try {
    return await operatorOf(settings).receipts.wait(hash, timeoutMs);
  } catch (error) {
    if (error instanceof WaitForTransactionReceiptTimeoutError) return null;
    throw error;
  }
}

/** What the escrow holds for a payment now (its `paymentState`). */
export async function readPaymentState(
  settings: EscrowSettings,
  paymentInfoHash: Hex,
  blockNumber?: bigint,
): Promise<{ collected: boolean; capturable: bigint; refundable: bigint }> {
  const [collected, capturable, refundable] = await getChainClient().readContract({
    address: settings.escrow,
    abi: escrowAbi,
    functionName: "paymentState",
    args: [paymentInfoHash],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  });
  return { collected, capturable, refundable };
}
