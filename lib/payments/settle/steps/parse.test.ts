// The parse step: a missing header asks for the challenge, a payload of another x402 version
// is a refusal the client can act on, and anything malformed is 400 invalid_payload.
import type { PaymentRequired } from "@x402/core/types";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { LOCAL_TOKEN_ADDRESS, LOCAL_TOKEN_EIP712_DOMAIN } from "../../chain/local-network";
import { signPaymentHeader } from "@/tests/helpers/x402";
import { parsePaymentSignature } from "./parse";

const payer = privateKeyToAccount(generatePrivateKey());
const challenge: PaymentRequired = {
  x402Version: 2,
  resource: { url: "http://127.0.0.1/api/jobs/job_1/settle?proposalId=prp_1" },
  accepts: [
    {
      scheme: "exact",
      network: "eip155:31337",
      amount: "1000000",
      asset: LOCAL_TOKEN_ADDRESS,
      payTo: privateKeyToAccount(generatePrivateKey()).address,
      maxTimeoutSeconds: 300,
      extra: { ...LOCAL_TOKEN_EIP712_DOMAIN },
    },
  ],
};

describe("parsePaymentSignature", () => {
  it("no header: nothing parsed, nothing refused (the challenge is the answer)", () => {
    expect(parsePaymentSignature(null)).toEqual({});
    expect(parsePaymentSignature("")).toEqual({});
  });

  it("a signed x402 v2 payment: its authorization, checksummed, nonce lower-cased", async () => {
    const parsed = parsePaymentSignature(await signPaymentHeader(payer, challenge));
    expect(parsed.refusal).toBeUndefined();
    expect(parsed.header?.authorization).toMatchObject({
      from: payer.address,
      to: challenge.accepts[0]!.payTo,
      value: "1000000",
    });
    expect(parsed.header?.authorization.nonce).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("a payment of another x402 version: refused with invalid_x402_version, not thrown", () => {
    const v1 = encodePaymentSignatureHeader({ x402Version: 1 } as never);
    expect(parsePaymentSignature(v1)).toEqual({ refusal: { code: "invalid_x402_version" } });
  });

  it.each([
    ["not base64 JSON", "%%%"],
    ["JSON that is not a payment", Buffer.from('{"x402Version":2}').toString("base64")],
  ])("%s: 400 invalid_payload", (_name, value) => {
    expect(() => parsePaymentSignature(value)).toThrow(
      expect.objectContaining({ status: 400, code: "invalid_payload" }),
    );
  });
});
