import { describe, expect, it } from "vitest";
import { REFUSAL_CODES, refusalCodeFor, refusalMessage } from "./outcomes";

describe("settle outcome codes", () => {
  it.each([
    // facilitator reason (x402 spec or @x402/evm 2.27)  → our code
    ["insufficient_funds", "insufficient_funds"],
    ["invalid_exact_evm_insufficient_balance", "insufficient_funds"],
    ["invalid_exact_evm_signature", "invalid_exact_evm_payload_signature"],
    ["invalid_exact_evm_payload_signature", "invalid_exact_evm_payload_signature"],
    ["invalid_exact_evm_failed_to_parse_signature", "invalid_exact_evm_payload_signature"],
    ["invalid_exact_evm_nonce_already_used", "authorization_already_used"],
    [
      "invalid_exact_evm_payload_authorization_valid_before",
      "invalid_exact_evm_payload_authorization_valid_before",
    ],
    [
      "invalid_exact_evm_payload_authorization_valid_after",
      "invalid_exact_evm_payload_authorization_valid_after",
    ],
    [
      "invalid_exact_evm_authorization_value",
      "invalid_exact_evm_payload_authorization_value_mismatch",
    ],
    ["invalid_exact_evm_recipient_mismatch", "invalid_exact_evm_payload_recipient_mismatch"],
    ["invalid_exact_evm_network_mismatch", "invalid_network"],
    ["invalid_exact_evm_scheme", "invalid_scheme"],
    // A failed transaction is not a wrong amount, whatever words its message holds.
    ["invalid_exact_evm_transaction_failed", "payment_refused"],
    ["invalid_exact_evm_transaction_simulation_failed", "payment_refused"],
    ["settlement_pending", "payment_refused"],
    [undefined, "payment_refused"],
  ] as const)("%s → %s", (reason, code) => {
    expect(refusalCodeFor(reason)).toBe(code);
  });

  it("never reads a failed transaction as a wrong amount", () => {
    expect(refusalMessage(refusalCodeFor("invalid_exact_evm_transaction_failed"))).not.toMatch(
      /amount/,
    );
  });

  it("has a distinct readable message for every refusal", () => {
    const messages = REFUSAL_CODES.map((code) => refusalMessage(code));
    expect(new Set(messages).size).toBe(REFUSAL_CODES.length);
  });

  it("puts the detail the caller knows beside the message", () => {
    expect(
      refusalMessage("invalid_exact_evm_payload_authorization_value_mismatch", "exactly 12.5 USDC"),
    ).toBe("wrong amount: the payment must be exactly the bid (exactly 12.5 USDC)");
  });
});
