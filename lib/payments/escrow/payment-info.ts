// The Commerce Payments escrow's PaymentInfo: the struct that names one held payment (who may
// capture it, who pays, who is paid, how much at most, until when, the fee bounds), its
// EIP-712 type and the two hashes built from it. `paymentInfoHash` is the escrow's
// `getHash(paymentInfo)`, the payment's id on chain; `payerAgnosticHash` (the payer zeroed) is
// what x402's auth-capture client signs as the ERC-3009 nonce, so a signature binds exactly
// these terms (x402 spec: specs/schemes/auth-capture/scheme_auth_capture_evm.md).
import {
  type Address,
  encodeAbiParameters,
  getAddress,
  type Hex,
  hashStruct,
  keccak256,
  zeroAddress,
} from "viem";

export interface PaymentInfo {
  operator: Address;
  payer: Address;
  receiver: Address;
  token: Address;
  maxAmount: bigint;
  preApprovalExpiry: number;
  authorizationExpiry: number;
  refundExpiry: number;
  minFeeBps: number;
  maxFeeBps: number;
  feeReceiver: Address;
  salt: bigint;
}

/** PaymentInfo as stored (settlements.escrowTerms): numbers and addresses as strings. */
export type StoredPaymentInfo = { [K in keyof PaymentInfo]: string };

/** The struct's EIP-712 type, field by field as the contract declares it. */
export const PAYMENT_INFO_TYPE = [
  { name: "operator", type: "address" },
  { name: "payer", type: "address" },
  { name: "receiver", type: "address" },
  { name: "token", type: "address" },
  { name: "maxAmount", type: "uint120" },
  { name: "preApprovalExpiry", type: "uint48" },
  { name: "authorizationExpiry", type: "uint48" },
  { name: "refundExpiry", type: "uint48" },
  { name: "minFeeBps", type: "uint16" },
  { name: "maxFeeBps", type: "uint16" },
  { name: "feeReceiver", type: "address" },
  { name: "salt", type: "uint256" },
] as const;

/** keccak256(abi.encode(chainId, escrow, hashStruct(PaymentInfo))): the escrow's getHash. */
export function paymentInfoHash(info: PaymentInfo, escrow: Address, chainId: number): Hex {
  const structHash = hashStruct({
    primaryType: "PaymentInfo",
    types: { PaymentInfo: PAYMENT_INFO_TYPE },
    data: info,
  });
  return keccak256(
    encodeAbiParameters(
      [{ type: "uint256" }, { type: "address" }, { type: "bytes32" }],
      [BigInt(chainId), escrow, structHash],
    ),
  );
}

/** The hash with the payer zeroed: the ERC-3009 nonce the payer signs. */
export const payerAgnosticHash = (info: PaymentInfo, escrow: Address, chainId: number): Hex =>
  paymentInfoHash({ ...info, payer: zeroAddress }, escrow, chainId);

export function storePaymentInfo(info: PaymentInfo): StoredPaymentInfo {
  return {
    operator: info.operator,
    payer: info.payer,
    receiver: info.receiver,
    token: info.token,
    maxAmount: info.maxAmount.toString(),
    preApprovalExpiry: String(info.preApprovalExpiry),
    authorizationExpiry: String(info.authorizationExpiry),
    refundExpiry: String(info.refundExpiry),
    minFeeBps: String(info.minFeeBps),
    maxFeeBps: String(info.maxFeeBps),
    feeReceiver: info.feeReceiver,
    salt: info.salt.toString(),
  };
}

export function loadPaymentInfo(stored: unknown): PaymentInfo {
  const s = stored as StoredPaymentInfo;
  return {
    operator: getAddress(s.operator),
    payer: getAddress(s.payer),
    receiver: getAddress(s.receiver),
    token: getAddress(s.token),
    maxAmount: BigInt(s.maxAmount),
    preApprovalExpiry: Number(s.preApprovalExpiry),
    authorizationExpiry: Number(s.authorizationExpiry),
    refundExpiry: Number(s.refundExpiry),
    minFeeBps: Number(s.minFeeBps),
    maxFeeBps: Number(s.maxFeeBps),
    feeReceiver: getAddress(s.feeReceiver),
    salt: BigInt(s.salt),
  };
}
