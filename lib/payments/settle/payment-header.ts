// Reads a PAYMENT-SIGNATURE header before anything else looks at it: base64 JSON of an x402
// v2 PaymentPayload (the x402 packages' own schema) whose payload is an EIP-3009
// authorization with a hex signature. Anything else is 400 `invalid_payload`, never a 500.
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { PaymentPayloadV2Schema } from "@x402/core/schemas";
import type { PaymentPayload } from "@x402/core/types";
import { isEIP3009Payload } from "@x402/evm";
import { getAddress, isAddress, type Address, type Hex } from "viem";
import { DomainError } from "@/lib/platform/errors";
import { refusalMessage } from "./outcomes";

/** The EIP-3009 authorization inside an `exact` EVM payment payload (decimal strings). */
export interface EvmAuthorization {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

export interface PaymentHeader {
  payload: PaymentPayload;
  authorization: EvmAuthorization;
  signature: Hex;
  /** auth-capture only: the PaymentInfo's salt the payer chose (32 bytes, hex). */
  salt?: Hex;
}

/** Thrown for a well-formed payload of another x402 version: a 402 the client can act on. */
export class WrongX402Version extends Error {
  override name = "WrongX402Version";
}

const UINT256 = /^\d{1,78}$/;
const UINT64 = /^\d{1,20}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
// 65-byte ECDSA, or longer for contract wallets (EIP-1271 / EIP-6492), always whole bytes.
const SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){65,4096}$/;

export function parsePaymentHeader(header: string): PaymentHeader {
  if (header.length > 64 * 1024) throw invalidPayload("the header is larger than 64 KiB");
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header);
  } catch {
    throw invalidPayload("it is not base64-encoded JSON");
  }
  const version = (decoded as { x402Version?: unknown } | null)?.x402Version;
  if (typeof version === "number" && version !== 2) {
    throw new WrongX402Version(refusalMessage("invalid_x402_version"));
  }
  const parsed = PaymentPayloadV2Schema.safeParse(decoded);
  if (!parsed.success) throw invalidPayload("it is not an x402 version 2 PaymentPayload");
  // The schema checked the shape; x402's own type spells networks as CAIP-2 templates.
  const payload = parsed.data as PaymentPayload;
  const inner = payload.payload;
  if (!isEIP3009Payload(inner as never)) {
    throw invalidPayload("its payload is not an EIP-3009 authorization with a signature");
  }
  const { authorization, signature, salt } = inner as {
    authorization: unknown;
    signature: unknown;
    salt?: unknown;
  };
  if (salt !== undefined && (typeof salt !== "string" || !BYTES32.test(salt))) {
    throw invalidPayload("the salt is not 32 bytes of hex");
  }
  if (typeof authorization !== "object" || authorization === null) {
    throw invalidPayload("the authorization is not an object");
  }
  if (typeof signature !== "string" || !SIGNATURE.test(signature)) {
    throw invalidPayload("the signature is not a hex string of whole bytes");
  }
  const { from, to, value, validAfter, validBefore, nonce } = authorization as Record<
    string,
    unknown
  >;
  if (
    typeof from !== "string" ||
    !isAddress(from, { strict: false }) ||
    typeof to !== "string" ||
    !isAddress(to, { strict: false }) ||
    typeof value !== "string" ||
    !UINT256.test(value) ||
    typeof validAfter !== "string" ||
    !UINT64.test(validAfter) ||
    typeof validBefore !== "string" ||
    !UINT64.test(validBefore) ||
    typeof nonce !== "string" ||
    !BYTES32.test(nonce)
  ) {
    throw invalidPayload("the authorization is incomplete or malformed");
  }
  return {
    payload,
    signature: signature as Hex,
    authorization: {
      from: getAddress(from),
      to: getAddress(to),
      value,
      validAfter,
      validBefore,
      nonce: nonce.toLowerCase() as Hex,
    },
    ...(salt === undefined ? {} : { salt: salt.toLowerCase() as Hex }),
  };
}

/**
 * The wallet a PAYMENT-SIGNATURE says it pays from, read without checking anything else (for
 * the per-payer rate limit, before any work); undefined when the header is unreadable.
 */
export function claimedPayer(header: string): Address | undefined {
  try {
    return parsePaymentHeader(header).authorization.from;
  } catch {
    return undefined;
  }
}

function invalidPayload(why: string) {
  return new DomainError(
    "invalid",
    `the PAYMENT-SIGNATURE header is not a valid x402 payment: ${why}`,
    {},
    "invalid_payload",
  );
}
