// A protected payment's terms as a table of refusals: every term a client could change in the
// challenge before signing it with the published x402 auth-capture client is refused with its
// code, before the operator signs anything. Real signatures; no database, no chain.
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { COMMERCE_PAYMENTS_V1_1 } from "../chain/escrow-deployments";
import {
  LOCAL_CHAIN_ID,
  LOCAL_TOKEN_ADDRESS,
  LOCAL_TOKEN_EIP712_DOMAIN,
} from "../chain/local-network";
import { receiveWithAuthorizationTypes } from "../chain/usdc-abi";
import { parsePaymentHeader } from "../settle/payment-header";
import { checkSignature } from "../settle/steps/terms";
import { payerAgnosticHash } from "./payment-info";
import type { EscrowSettings } from "./settings";
import { checkEscrowTerms } from "./terms";

const operatorKey = generatePrivateKey();
const operator = privateKeyToAccount(operatorKey).address;
const poster = privateKeyToAccount(generatePrivateKey());
const agent = privateKeyToAccount(generatePrivateKey()).address;
const stranger = privateKeyToAccount(generatePrivateKey()).address;
const now = Math.floor(Date.now() / 1000);

const settings: EscrowSettings = {
  escrow: COMMERCE_PAYMENTS_V1_1.authCaptureEscrow,
  collector: COMMERCE_PAYMENTS_V1_1.erc3009PaymentCollector,
  operatorKey,
  operator,
  feeBps: 0,
  feeReceiver: operator,
  graceSeconds: 3600,
  reviewSeconds: 7200,
  disputeSeconds: 86_400,
  refundSeconds: 30 * 86_400,
  admins: [],
};
const captureDeadline = now + 86_400 + 3600 + 7200 + 86_400;
const required: PaymentRequirements = {
  scheme: "auth-capture",
  network: "eip155:31337",
  asset: LOCAL_TOKEN_ADDRESS,
  amount: "7250000",
  payTo: agent,
  maxTimeoutSeconds: 300,
  extra: {
    ...LOCAL_TOKEN_EIP712_DOMAIN,
    authCaptureEscrow: settings.escrow,
    captureAuthorizer: operator,
    captureDeadline,
    refundDeadline: captureDeadline + settings.refundSeconds,
    feeRecipient: operator,
    minFeeBps: 0,
    maxFeeBps: 0,
  },
};

/** Signs `offered` (the challenge, perhaps changed by the client) as the published client does. */
async function signed(offered: PaymentRequirements = required, payer = poster) {
  const { payload } = await new AuthCaptureEvmScheme(payer).createPaymentPayload(2, offered);
  const paymentPayload: PaymentPayload = {
    x402Version: 2,
    resource: { url: "http://127.0.0.1/api/jobs/job_1/settle?proposalId=prp_1&mode=escrow" },
    accepted: offered,
    payload,
  };
  return parsePaymentHeader(encodePaymentSignatureHeader(paymentPayload));
}

const check = async (offered?: PaymentRequirements, payer = poster) =>
  checkEscrowTerms(
    await signed(offered, payer),
    required,
    settings,
    poster.address,
    LOCAL_CHAIN_ID,
    now,
  );

const withExtra = (extra: Record<string, unknown>): PaymentRequirements => ({
  ...required,
  extra: { ...required.extra, ...extra },
});

describe("checkEscrowTerms", () => {
  it("passes the challenge's own terms, and rebuilds the PaymentInfo the payer signed", async () => {
    const header = await signed();
    const result = checkEscrowTerms(
      header,
      required,
      settings,
      poster.address,
      LOCAL_CHAIN_ID,
      now,
    );
    expect("info" in result).toBe(true);
    if (!("info" in result)) return;
    expect(result.info).toMatchObject({
      operator,
      payer: poster.address,
      receiver: agent,
      maxAmount: 7_250_000n,
      authorizationExpiry: captureDeadline,
      refundExpiry: captureDeadline + settings.refundSeconds,
    });
    expect(payerAgnosticHash(result.info, settings.escrow, LOCAL_CHAIN_ID)).toBe(
      header.authorization.nonce,
    );
    expect(await checkSignature(header, required, receiveWithAuthorizationTypes)).toBeUndefined();
  });

  it.each([
    [
      "another receiver",
      { ...required, payTo: stranger },
      "invalid_exact_evm_payload_recipient_mismatch",
    ],
    [
      "a smaller amount",
      { ...required, amount: "1000000" },
      "invalid_exact_evm_payload_authorization_value_mismatch",
    ],
    ["another operator", withExtra({ captureAuthorizer: stranger }), "escrow_terms_mismatch"],
    ["another fee recipient", withExtra({ feeRecipient: stranger }), "escrow_terms_mismatch"],
    ["a fee", withExtra({ minFeeBps: 0, maxFeeBps: 10_000 }), "escrow_terms_mismatch"],
    [
      "a year longer held",
      withExtra({
        captureDeadline: captureDeadline + 365 * 86_400,
        refundDeadline: captureDeadline + 395 * 86_400,
      }),
      "escrow_terms_mismatch",
    ],
    [
      "a deadline already past",
      withExtra({ captureDeadline: now - 10, refundDeadline: now - 10 + settings.refundSeconds }),
      "escrow_terms_mismatch",
    ],
    [
      "another refund window",
      withExtra({ refundDeadline: captureDeadline + 1 }),
      "escrow_terms_mismatch",
    ],
    [
      "the v1.0 escrow",
      withExtra({ authCaptureEscrow: "0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff" }),
      "escrow_terms_mismatch",
    ],
  ])("refuses %s", async (_name, offered, code) => {
    const result = await check(offered as PaymentRequirements);
    expect("refusal" in result && result.refusal.code).toBe(code);
  });

  it("refuses another payer than the poster", async () => {
    const result = await check(required, privateKeyToAccount(generatePrivateKey()));
    expect("refusal" in result && result.refusal.code).toBe("wrong_payer");
  });

  it("refuses a nonce that is not the hash of the sent terms (a salt swapped after signing)", async () => {
    const header = await signed();
    const tampered = { ...header, salt: `0x${"11".repeat(32)}` as const };
    const result = checkEscrowTerms(
      tampered,
      required,
      settings,
      poster.address,
      LOCAL_CHAIN_ID,
      now,
    );
    expect("refusal" in result && result.refusal.code).toBe("escrow_terms_mismatch");
  });

  it("refuses a signature by someone other than the payer", async () => {
    const header = await signed();
    const other = await signed(required, privateKeyToAccount(generatePrivateKey()));
    expect(
      await checkSignature(
        { ...header, signature: other.signature },
        required,
        receiveWithAuthorizationTypes,
      ),
    ).toEqual({
      code: "invalid_exact_evm_payload_signature",
    });
  });
});
