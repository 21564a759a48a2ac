// Verify a plain payment by the token itself, without recovering its signature here (issue 27:
// a signature recovery costs about 3 ms of this server's CPU, a tenth of a payment's, and x402
// recovers the same signature again when it settles, before it broadcasts).
//
// x402's verify of an EIP-3009 payment checks the terms against the requirements, recovers the
// signature (ECDSA for an address without code, ERC-1271 for a contract) and simulates the
// transfer on chain. For a 65-byte signature from an address without code, the simulation
// alone already decides the signature: the token's transferWithAuthorization recovers it
// itself (ECDSA, low s) and reverts unless it is the payer's, the authorization unused and in
// its window. So here the terms are checked as x402 checks them, the payer is confirmed to have
// no code, and the very transfer that settling will send is simulated (as its gas estimate,
// ./gas-estimates.ts). Anything else, or any doubt (a check that fails, a contract or
// delegated payer, a longer signature, a simulation that reverts), goes to x402's own verify,
// whose answer and refusal codes are then the ones given: this path only ever says "valid",
// and only when the chain executed the exact transfer.
import type { PaymentPayload, PaymentRequirements, VerifyResponse } from "@x402/core/types";
import { eip3009ABI } from "@x402/evm";
import { encodeFunctionData, getAddress, type Hex, isHex, parseSignature } from "viem";
import type { SendRequest } from "./sender";

/** x402's own margin: an authorization this close to its end could not be settled in time. */
const VALID_BEFORE_MARGIN_SECONDS = 6;

interface Eip3009Payload {
  signature: Hex;
  authorization: {
    from: Hex;
    to: Hex;
    value: string;
    validAfter: string;
    validBefore: string;
    nonce: Hex;
  };
}

export interface ChainChecks {
  /** An address's code (kept as the facilitator keeps it). */
  code(address: Hex): Promise<Hex | undefined>;
  /** Runs the transaction against the chain's state; rejects where it would revert. */
  simulate(request: SendRequest): Promise<unknown>;
}

export async function verifiedByTheChain(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  chain: ChainChecks,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<VerifyResponse | undefined> {
  const eip3009 = payload.payload as unknown as Partial<Eip3009Payload>;
  const auth = eip3009.authorization;
  const signature = eip3009.signature;
  const extra = requirements.extra as { name?: unknown; version?: unknown } | undefined;
  if (
    !auth ||
    typeof signature !== "string" ||
    !isHex(signature) ||
    signature.length !== 132 ||
    payload.accepted.scheme !== "exact" ||
    requirements.scheme !== "exact" ||
    payload.accepted.network !== requirements.network ||
    typeof extra?.name !== "string" ||
    typeof extra.version !== "string"
  ) {
    return undefined;
  }
  let transfer: SendRequest;
  try {
    if (
      getAddress(auth.to) !== getAddress(requirements.payTo) ||
      BigInt(auth.value) !== BigInt(requirements.amount) ||
      BigInt(auth.validAfter) > BigInt(nowSeconds) ||
      BigInt(auth.validBefore) < BigInt(nowSeconds + VALID_BEFORE_MARGIN_SECONDS)
    ) {
      return undefined;
    }
    const parsed = parseSignature(signature);
    // Encoded as x402's settle encodes it, so that its send takes this simulation's estimate.
    transfer = {
      to: getAddress(requirements.asset),
      data: encodeFunctionData({
        abi: eip3009ABI,
        functionName: "transferWithAuthorization",
        args: [
          getAddress(auth.from),
          getAddress(auth.to),
          BigInt(auth.value),
          BigInt(auth.validAfter),
          BigInt(auth.validBefore),
          auth.nonce,
          Number(parsed.v || parsed.yParity),
          parsed.r,
          parsed.s,
        ],
      }),
    };
  } catch {
    return undefined;
  }
  const [payerCode, tokenCode] = await Promise.all([
    chain.code(getAddress(auth.from)),
    chain.code(transfer.to),
  ]);
  if ((payerCode && payerCode !== "0x") || !tokenCode || tokenCode === "0x") return undefined;
  try {
    await chain.simulate(transfer);
  } catch {
    return undefined;
  }
  return { isValid: true, invalidReason: undefined, payer: getAddress(auth.from) };
}
