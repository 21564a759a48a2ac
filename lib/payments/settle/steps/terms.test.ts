// The terms step as the contract's table of refusals: each way a payment can plainly not be
// for this bid, refused with its code before the facilitator is asked. Real signatures.
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { LOCAL_TOKEN_ADDRESS, LOCAL_TOKEN_EIP712_DOMAIN } from "../../chain/local-network";
import {
  receiveWithAuthorizationTypes,
  transferWithAuthorizationTypes,
} from "../../chain/usdc-abi";
import { parsePaymentHeader } from "../payment-header";
import { MAX_TIMEOUT_SECONDS } from "../requirements";
import { signPaymentHeader } from "@/tests/helpers/x402";
import { checkSignature, checkTerms, VALIDITY_SLACK_SECONDS } from "./terms";

const poster = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
const agent = privateKeyToAccount(generatePrivateKey()).address;

const required: PaymentRequirements = {
  scheme: "exact",
  network: "eip155:31337",
  amount: "7250000",
  asset: LOCAL_TOKEN_ADDRESS,
  payTo: agent,
  maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
  extra: { ...LOCAL_TOKEN_EIP712_DOMAIN },
};
const challenge: PaymentRequired = {
  x402Version: 2,
  resource: { url: "http://127.0.0.1/api/jobs/job_1/settle?proposalId=prp_1" },
  accepts: [required],
};

type SignOptions = Parameters<typeof signPaymentHeader>[2];
const header = async (options: SignOptions = {}, payer = poster) =>
  parsePaymentHeader(await signPaymentHeader(payer, challenge, options));

describe("checkTerms", () => {
  it("passes the bid's own terms, signed by the poster", async () => {
    expect(checkTerms(await header(), required, poster.address)).toBeUndefined();
  });

  it.each([
    ["another scheme", { accepted: { scheme: "upto" } }, "invalid_scheme"],
    ["another network", { accepted: { network: "eip155:8453" } }, "invalid_network"],
    ["another asset", { accepted: { asset: agent } }, "wrong_asset"],
    [
      "another amount signed",
      { signed: { value: "7249999" } },
      "invalid_exact_evm_payload_authorization_value_mismatch",
    ],
    [
      "another amount offered",
      { accepted: { amount: "1" } },
      "invalid_exact_evm_payload_authorization_value_mismatch",
    ],
    [
      "another payee",
      { signed: { to: poster.address } },
      "invalid_exact_evm_payload_recipient_mismatch",
    ],
    [
      "expired",
      { signed: { validBefore: "1" } },
      "invalid_exact_evm_payload_authorization_valid_before",
    ],
    [
      "not valid yet",
      { signed: { validAfter: String(Math.floor(Date.now() / 1000) + 3600) } },
      "invalid_exact_evm_payload_authorization_valid_after",
    ],
  ] as const)("refuses %s with %s", async (_name, options, code) => {
    expect(
      checkTerms(await header(options as SignOptions), required, poster.address),
    ).toMatchObject({
      code,
    });
  });

  it("refuses a payer who is not the job's poster", async () => {
    expect(checkTerms(await header({}, stranger), required, poster.address)).toEqual({
      code: "wrong_payer",
    });
  });

  it("refuses an authorization valid for longer than the challenge allows (plus clock slack)", async () => {
    const now = Math.floor(Date.now() / 1000);
    const limit = now + MAX_TIMEOUT_SECONDS + VALIDITY_SLACK_SECONDS;
    const atLimit = await header({ signed: { validBefore: String(limit) } });
    expect(checkTerms(atLimit, required, poster.address, now)).toBeUndefined();
    const past = await header({ signed: { validBefore: String(limit + 1) } });
    expect(checkTerms(past, required, poster.address, now)).toMatchObject({
      code: "invalid_exact_evm_payload_authorization_valid_before",
      detail: `valid for too long: at most ${MAX_TIMEOUT_SECONDS} seconds`,
    });
  });
});

describe("checkSignature", () => {
  it("passes a signature the payer made over these terms", async () => {
    expect(
      await checkSignature(await header(), required, transferWithAuthorizationTypes),
    ).toBeUndefined();
  });

  it("refuses terms sent other than signed, and another signer's signature", async () => {
    const tampered = await header({ sent: { validAfter: "1" } });
    expect(await checkSignature(tampered, required, transferWithAuthorizationTypes)).toEqual({
      code: "invalid_exact_evm_payload_signature",
    });
    const honest = await header();
    const forged = await header({}, stranger);
    const swapped = { ...honest, signature: forged.signature };
    expect(await checkSignature(swapped, required, transferWithAuthorizationTypes)).toEqual({
      code: "invalid_exact_evm_payload_signature",
    });
  });

  it("checks the message the types name: a TransferWithAuthorization is no ReceiveWithAuthorization", async () => {
    expect(await checkSignature(await header(), required, receiveWithAuthorizationTypes)).toEqual({
      code: "invalid_exact_evm_payload_signature",
    });
  });

  it("leaves longer signatures (contract wallets, EIP-1271/6492) to the facilitator", async () => {
    const honest = await header();
    const long = { ...honest, signature: `${honest.signature}${"00".repeat(32)}` as const };
    expect(await checkSignature(long, required, transferWithAuthorizationTypes)).toBeUndefined();
    // and a 65-byte signature that recovers to nothing is refused, not thrown
    const garbage = { ...honest, signature: `0x${"ff".repeat(65)}` as const };
    expect(await checkSignature(garbage, required, transferWithAuthorizationTypes)).toEqual({
      code: "invalid_exact_evm_payload_signature",
    });
  });
});
