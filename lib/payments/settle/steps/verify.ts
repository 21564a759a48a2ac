// Step 5, verify: the facilitator checks the signature and the payer's balance on chain,
// moving nothing. A facilitator that does not answer is 503 (nothing charged).
import "server-only";
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import { errorSummary } from "@/lib/platform/redact";
import type { Refusal } from "../answer";
import { refusalCodeFor } from "../outcomes";
import type { PaymentHeader } from "../payment-header";
import { facilitatorUnavailable } from "../requirements";

export async function verifyWithFacilitator(
  server: x402ResourceServer,
  header: PaymentHeader,
  required: PaymentRequirements,
): Promise<Refusal | undefined> {
  let verified;
  try {
    verified = await server.verifyPayment(header.payload, required);
  } catch (error) {
    console.error(`x402 verify failed: ${errorSummary(error)}`);
    throw facilitatorUnavailable();
  }
  if (verified.isValid) return undefined;
  return { code: refusalCodeFor(verified.invalidReason), detail: verified.invalidReason };
}
