// The part of USDC's interface (FiatTokenV2: ERC-20 + EIP-3009) that settlement checks read.
// Circle's USDC on Base and our local TestUSDC share it.
import { parseAbi } from "viem";

export const usdcAbi = parseAbi([
  "function balanceOf(address account) view returns (uint256)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
]);

/** EIP-3009's signed authorization: the fields both of its EIP-712 messages carry. */
const authorizationFields = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

/** What a payer's wallet signs with EIP-712 to pay now: anyone may submit the transfer. */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: authorizationFields,
} as const;

/**
 * What a payer's wallet signs for a protected payment: only the recipient (the escrow's
 * ERC-3009 payment collector) may redeem it, so nobody can front-run it as a plain transfer.
 */
export const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: authorizationFields,
} as const;

/** The EIP-3009 typed-data types a payment signature is checked against. */
export type AuthorizationTypes =
  typeof transferWithAuthorizationTypes | typeof receiveWithAuthorizationTypes;
export type AuthorizationFields = typeof authorizationFields;
