// Step 4, terms: a refusal before asking the facilitator, when the payment is plainly not for
// this bid (scheme, network, asset, amount, payee, payer, validity window), or its 65-byte
// signature does not recover to the payer. Pure: no database, no chain, no facilitator.
import type { PaymentRequirements } from "@x402/core/types";
import { getAddress, isAddressEqual, recoverTypedDataAddress } from "viem";
import { checkRole } from "@/lib/kernel/lifecycle";
import { sameAddress } from "@/lib/shared/address";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";
import type { Refusal } from "../answer";
import type { AuthorizationFields, AuthorizationTypes } from "../../chain/usdc-abi";
import type { PaymentHeader } from "../payment-header";
import { MAX_TIMEOUT_SECONDS } from "../requirements";

/** Clock skew tolerated between the payer's clock and ours on `validBefore`. */
export const VALIDITY_SLACK_SECONDS = 120;

export function checkTerms(
  header: PaymentHeader,
  required: PaymentRequirements,
  poster: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Refusal | undefined {
  const { authorization, payload } = header;
  const accepted = payload.accepted;
  if (accepted.scheme !== required.scheme) return { code: "invalid_scheme" };
  // mutant: settle-the-configured-network
  if (accepted.network !== required.network) {
    return { code: "invalid_network", detail: `this job is paid on ${required.network}` };
  }
  // mutant end
  // mutant: settle-the-configured-asset
  if (!sameAddress(accepted.asset, required.asset)) {
    return { code: "wrong_asset", detail: `the asset is ${required.asset}` };
  }
  // mutant end
  // mutant: settle-exactly-the-bid
  if (authorization.value !== required.amount || accepted.amount !== required.amount) {
    return {
      code: "invalid_exact_evm_payload_authorization_value_mismatch",
      detail: `this proposal costs exactly ${formatUsdc(atomicToUsdc(BigInt(required.amount)), "plain")} USDC`,
    };
  }
  // mutant end
  if (
    !sameAddress(authorization.to, required.payTo) ||
    !sameAddress(accepted.payTo, required.payTo)
  ) {
    return {
      code: "invalid_exact_evm_payload_recipient_mismatch",
      detail: `pay ${required.payTo}`,
    };
  }
  // mutant: settle-the-payer-is-the-poster
  if (!checkRole("pay", { caller: authorization.from, posterAddress: poster }).allowed) {
    return { code: "wrong_payer" };
  }
  // mutant end
  const now = BigInt(nowSeconds);
  if (BigInt(authorization.validBefore) <= now) {
    return { code: "invalid_exact_evm_payload_authorization_valid_before" };
  }
  if (BigInt(authorization.validAfter) > now) {
    return { code: "invalid_exact_evm_payload_authorization_valid_after" };
  }
  if (
    BigInt(authorization.validBefore) >
    now + BigInt(MAX_TIMEOUT_SECONDS + VALIDITY_SLACK_SECONDS)
  ) {
    return {
      code: "invalid_exact_evm_payload_authorization_valid_before",
      detail: `valid for too long: at most ${MAX_TIMEOUT_SECONDS} seconds`,
    };
  }
  return undefined;
}

/**
 * A 65-byte signature must recover to the payer over these terms, signed as `types` says
 * (TransferWithAuthorization to pay now, ReceiveWithAuthorization for a protected payment):
 * checked here, without the chain, so that garbage never costs the facilitator's or the
 * operator's RPC calls. Longer signatures (contract wallets: EIP-1271, EIP-6492) are left to
 * the facilitator, or to the protected payment's authorize simulation.
 */
export async function checkSignature(
  header: PaymentHeader,
  required: PaymentRequirements,
  types: AuthorizationTypes,
): Promise<Refusal | undefined> {
  if (header.signature.length !== 132) return undefined;
  const extra = required.extra as { name?: string; version?: string } | undefined;
  // Either message has the same fields: only its name (the primary type) differs.
  const [primaryType] = Object.keys(types) as [string];
  const typesByName: Record<string, AuthorizationFields> = types;
  try {
    const signer = await recoverTypedDataAddress({
      domain: {
        name: extra?.name,
        version: extra?.version,
        chainId: Number(required.network.split(":")[1]),
        verifyingContract: getAddress(required.asset),
      },
      types: typesByName,
      primaryType,
      message: {
        from: header.authorization.from,
        to: header.authorization.to,
        value: BigInt(header.authorization.value),
        validAfter: BigInt(header.authorization.validAfter),
        validBefore: BigInt(header.authorization.validBefore),
        nonce: header.authorization.nonce,
      },
      signature: header.signature,
    });
    if (isAddressEqual(signer, header.authorization.from)) return undefined;
  } catch {
    // An unrecoverable signature is as invalid as another signer's.
  }
  return { code: "invalid_exact_evm_payload_signature" };
}
