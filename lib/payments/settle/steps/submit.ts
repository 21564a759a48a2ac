// Step 7, settle: the facilitator sends the transfer. Its word decides nothing, "yes" or
// "no": a "no" may be a transfer sent and not yet mined, or an RPC failure after sending; a
// "yes" is recorded only once the chain's receipt shows it (./record.ts).

import "server-only";
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Hex, TransactionReceipt } from "viem";
import { errorSummary } from "@/lib/platform/redact";
import type { PaymentHeader } from "../payment-header";

export interface Submitted {
  /** The facilitator's answer, when it gave one. */
  response?: SettleResponse;
  /** Why it did not confirm (its reason, or the error), when it did not. */
  note?: string;
  /**
   * The chain's receipt of the transaction, when this process already holds it (the
   * facilitator or the escrow operator waited for it here): ./record.ts checks it instead of
   * asking the chain again.
   */
  receipt?: TransactionReceipt;
}

/** A receipt this process already read from the chain, by transaction hash. */
export type KnownReceipt = (hash: Hex) => TransactionReceipt | undefined;

export async function submitSettlement(
  server: x402ResourceServer,
  header: PaymentHeader,
  required: PaymentRequirements,
  knownReceipt: KnownReceipt = () => undefined,
): Promise<Submitted> {
  try {
    const response = await server.settlePayment(header.payload, required);
    if (!response.success) return { response, note: response.errorReason ?? "not settled" };
    const receipt = /^0x[0-9a-fA-F]{64}$/.test(response.transaction)
      ? knownReceipt(response.transaction as Hex)
      : undefined;
    return { response, receipt };
  } catch (error) {
    return { note: errorSummary(error) };
  }
}
