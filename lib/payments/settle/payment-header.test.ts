import { encodePaymentSignatureHeader } from "@x402/core/http";
import { describe, expect, it } from "vitest";
import { DomainError } from "@/lib/platform/errors";
import { parsePaymentHeader, WrongX402Version } from "./payment-header";

const valid = {
  x402Version: 2,
  resource: { url: "http://localhost/api/jobs/job_1/settle?proposalId=prop_1" },
  accepted: {
    scheme: "exact",
    network: "eip155:31337",
    amount: "12500000",
    asset: "0xe78A0F7E598Cc8b0Bb87894B0F60dD2a88d6a8Ab",
    payTo: "0x1111111111111111111111111111111111111111",
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin Local", version: "2" },
  },
  payload: {
    signature: `0x${"ab".repeat(65)}`,
    authorization: {
      from: "0x2222222222222222222222222222222222222222",
      to: "0x1111111111111111111111111111111111111111",
      value: "12500000",
      validAfter: "0",
      validBefore: "1795369000",
      nonce: `0x${"CD".repeat(32)}`,
    },
  },
};
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
const withAuthorization = (changes: Record<string, unknown>) => ({
  ...valid,
  payload: { ...valid.payload, authorization: { ...valid.payload.authorization, ...changes } },
});

describe("reading a PAYMENT-SIGNATURE header", () => {
  it("reads a valid x402 v2 EIP-3009 payment, addresses checksummed, nonce lowercased", () => {
    const header = parsePaymentHeader(encodePaymentSignatureHeader(valid as never));
    expect(header.authorization).toEqual({
      ...valid.payload.authorization,
      nonce: `0x${"cd".repeat(32)}`,
    });
    expect(header.signature).toBe(valid.payload.signature);
  });

  it.each([
    ["not base64", "%%%"],
    ["not JSON", Buffer.from("hi").toString("base64")],
    ["JSON null", encode(null)],
    ["no accepted", encode({ ...valid, accepted: undefined })],
    ["no payload", encode({ ...valid, payload: undefined })],
    ["a Permit2 payload", encode({ ...valid, payload: { signature: valid.payload.signature } })],
    ["no signature", encode({ ...valid, payload: { authorization: valid.payload.authorization } })],
    ["a numeric signature", encode({ ...valid, payload: { ...valid.payload, signature: 7 } })],
    ["a short signature", encode({ ...valid, payload: { ...valid.payload, signature: "0xabcd" } })],
    [
      "an odd-length signature",
      encode({ ...valid, payload: { ...valid.payload, signature: `${valid.payload.signature}a` } }),
    ],
    [
      "a null authorization",
      encode({ ...valid, payload: { ...valid.payload, authorization: null } }),
    ],
    [
      "a string authorization",
      encode({ ...valid, payload: { ...valid.payload, authorization: "x" } }),
    ],
    ["a bad from", encode(withAuthorization({ from: "0x12" }))],
    ["a bad to", encode(withAuthorization({ to: 5 }))],
    ["a decimal value", encode(withAuthorization({ value: "1.5" }))],
    ["a numeric value", encode(withAuthorization({ value: 12500000 }))],
    ["a hex validBefore", encode(withAuthorization({ validBefore: "0x10" }))],
    ["a short nonce", encode(withAuthorization({ nonce: "0x1234" }))],
    ["a missing nonce", encode(withAuthorization({ nonce: undefined }))],
    ["64 KiB and more", "A".repeat(64 * 1024 + 1)],
  ])("refuses %s as 400 invalid_payload", (_name, header) => {
    let error: unknown;
    try {
      parsePaymentHeader(header);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: "invalid", code: "invalid_payload" });
  });

  it("tells a well-formed payment of another x402 version apart (a 402, not a 400)", () => {
    expect(() => parsePaymentHeader(encode({ ...valid, x402Version: 1 }))).toThrow(
      WrongX402Version,
    );
  });
});
