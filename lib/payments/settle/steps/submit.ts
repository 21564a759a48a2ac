// Step 7, settle: the facilitator sends the transfer. Its word decides nothing, "yes" or
// "no": a "no" may be a transfer sent and not yet mined, or an RPC failure after sending; a
// "yes" is recorded only once the chain's receipt shows it (./record.ts).
import "server-only";
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import { errorSummary } from "@/lib/platform/redact";
import type { PaymentHeader } from "../payment-header";

export interface Submitted {
  /** The facilitator's answer, when it gave one. */
  response?: SettleResponse;
  /** Why it did not confirm (its reason, or the error), when it did not. */
  note?: string;
}

export async function submitSettlement(
  server: x402ResourceServer,
  header: PaymentHeader,
  required: PaymentRequirements,
): Promise<Submitted> {
  try {
    const response = await server.settlePayment(header.payload, required);
    return response.success
      ? { response }
      : { response, note: response.errorReason ?? "not settled" };
  } catch (error) {
    return { note: errorSummary(error) };
  }
}
