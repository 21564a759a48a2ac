// Every outcome of POST /api/jobs/:id/settle has a machine-readable code beside its readable
// message (contract: Settlement, Outcomes). Codes are the x402 v2 spec's error reasons where
// one fits, else our own. The facilitator's reasons map to them through a table of exact
// codes: nothing here guesses from the words of a message.
import { PAYMENT_REFUSAL_CODES } from "@/lib/shared/error-codes";

/** A 402: nothing moved; the body says why, and a fresh PAYMENT-REQUIRED comes with it. */
export type RefusalCode = keyof typeof PAYMENT_REFUSAL_CODES;
export const REFUSAL_CODES = Object.keys(PAYMENT_REFUSAL_CODES) as RefusalCode[];

/** The facilitator's reason codes (x402 spec and @x402/evm 2.27 names) → ours. */
const FACILITATOR_REASONS: Record<string, RefusalCode> = {
  insufficient_funds: "insufficient_funds",
  invalid_exact_evm_insufficient_balance: "insufficient_funds",
  invalid_exact_evm_payload_signature: "invalid_exact_evm_payload_signature",
  invalid_exact_evm_signature: "invalid_exact_evm_payload_signature",
  invalid_exact_evm_failed_to_parse_signature: "invalid_exact_evm_payload_signature",
  invalid_exact_evm_nonce_already_used: "authorization_already_used",
  invalid_exact_evm_payload_authorization_valid_before:
    "invalid_exact_evm_payload_authorization_valid_before",
  invalid_exact_evm_payload_authorization_valid_after:
    "invalid_exact_evm_payload_authorization_valid_after",
  invalid_exact_evm_payload_authorization_value_mismatch:
    "invalid_exact_evm_payload_authorization_value_mismatch",
  invalid_exact_evm_authorization_value: "invalid_exact_evm_payload_authorization_value_mismatch",
  invalid_exact_evm_payload_recipient_mismatch: "invalid_exact_evm_payload_recipient_mismatch",
  invalid_exact_evm_recipient_mismatch: "invalid_exact_evm_payload_recipient_mismatch",
  invalid_network: "invalid_network",
  invalid_exact_evm_network_mismatch: "invalid_network",
  invalid_scheme: "invalid_scheme",
  unsupported_scheme: "invalid_scheme",
  invalid_exact_evm_scheme: "invalid_scheme",
  invalid_x402_version: "invalid_x402_version",
};

export function refusalCodeFor(facilitatorReason: string | undefined): RefusalCode {
  return (facilitatorReason && FACILITATOR_REASONS[facilitatorReason]) || "payment_refused";
}

/** Readable messages; `detail` fills in what only the caller knows (amount, payee...). */
export function refusalMessage(code: RefusalCode, detail?: string): string {
  const base: Record<RefusalCode, string> = {
    payment_required:
      "payment required: sign the USDC authorization and send it as PAYMENT-SIGNATURE",
    invalid_x402_version: "only x402 version 2 payments are accepted",
    invalid_scheme: "wrong scheme: this job is paid with the exact scheme",
    invalid_network: "wrong network",
    wrong_asset: "wrong asset: pay in USDC",
    invalid_exact_evm_payload_authorization_value_mismatch:
      "wrong amount: the payment must be exactly the bid",
    invalid_exact_evm_payload_recipient_mismatch:
      "wrong payee: the payment must go to the agent's wallet",
    wrong_payer: "wrong payer: only the job's poster can pay for it",
    invalid_exact_evm_payload_authorization_valid_before:
      "the payment authorization has expired; sign a new one",
    invalid_exact_evm_payload_authorization_valid_after:
      "the payment authorization is not valid yet",
    invalid_exact_evm_payload_signature:
      "invalid signature: the authorization was not signed by the payer for these terms",
    insufficient_funds: "insufficient balance: the payer does not hold enough USDC",
    authorization_already_used:
      "this authorization was already used for another payment; sign a new one",
    payment_refused: "the payment was refused",
    settlement_failed: "the payment was not settled and can no longer be; sign a new one",
    escrow_terms_mismatch:
      "the protected payment does not sign the challenge's terms (escrow, operator, fee, deadlines); sign the challenge as given",
  };
  return detail ? `${base[code]} (${detail})` : base[code];
}
