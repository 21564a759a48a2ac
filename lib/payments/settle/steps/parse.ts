// Step 1, parse: the PAYMENT-SIGNATURE is read before anything else, so a malformed one is
// 400 invalid_payload whatever the job's state. A well-formed payload of another x402
// version is a refusal the client can act on (402 invalid_x402_version), not an error.
import "server-only";
import type { Refusal } from "../answer";
import { type PaymentHeader, parsePaymentHeader, WrongX402Version } from "../payment-header";

export type Parsed = { header?: PaymentHeader; refusal?: Refusal };

export function parsePaymentSignature(paymentHeader: string | null): Parsed {
  if (!paymentHeader) return {};
  try {
    return { header: parsePaymentHeader(paymentHeader) };
  } catch (error) {
    // mutant: settle-a-malformed-payment-signature-is-400-invalid-payload
    if (!(error instanceof WrongX402Version)) throw error;
    // mutant end
    return { refusal: { code: "invalid_x402_version" } };
  }
}
