// Driving the local escrow stand-in (contracts/escrow, dev/escrow.ts) from tests: payment info,
// the payer's ReceiveWithAuthorization signature, the hashes (the product's, lib/payments/escrow/
// payment-info.ts, defaulted to the local stand-in), the operator's calls, and the custom error a
// reverted call carries.
import { randomBytes } from "node:crypto";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  http,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import {
  LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
  LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS,
  authCaptureEscrowAbi,
} from "@/dev/escrow";
import { LOCAL_CHAIN_ID, LOCAL_TOKEN_ADDRESS, LOCAL_TOKEN_EIP712_DOMAIN } from "@/dev/local-chain";
import { localChain } from "@/lib/payments/chain/local-network";
import { receiveWithAuthorizationTypes } from "@/lib/payments/chain/usdc-abi";
import { testUsdcAbi } from "@/dev/contracts";
import {
  type PaymentInfo,
  payerAgnosticHash as productPayerAgnosticHash,
  paymentInfoHash as productPaymentInfoHash,
} from "@/lib/payments/escrow/payment-info";

export type { PaymentInfo };

/** The escrow's payment hash (its getHash), by default the local stand-in's on the local chain. */
export const paymentInfoHash = (
  info: PaymentInfo,
  escrow: Address = LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
  chainId: number = LOCAL_CHAIN_ID,
): Hex => productPaymentInfoHash(info, escrow, chainId);

/** What the payer signs as the EIP-3009 nonce on the local stand-in: the hash, payer zeroed. */
export const payerAgnosticHash = (info: PaymentInfo) =>
  productPayerAgnosticHash(info, LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS, LOCAL_CHAIN_ID);

/** The payer's signature the ERC-3009 payment collector redeems for `info`. */
export function signPaymentCollection(payer: PrivateKeyAccount, info: PaymentInfo): Promise<Hex> {
  return payer.signTypedData({
    domain: {
      ...LOCAL_TOKEN_EIP712_DOMAIN,
      chainId: LOCAL_CHAIN_ID,
      verifyingContract: info.token,
    },
    types: receiveWithAuthorizationTypes,
    primaryType: "ReceiveWithAuthorization",
    message: {
      from: info.payer,
      to: LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS,
      value: info.maxAmount,
      validAfter: 0n,
      validBefore: BigInt(info.preApprovalExpiry),
      nonce: payerAgnosticHash(info),
    },
  });
}

export const randomSalt = () => BigInt(toHex(randomBytes(32)));

export function escrowClients(rpcUrl: string) {
  const chain = localChain(rpcUrl);
  const transport = http(rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
  const walletFor = (account: PrivateKeyAccount) =>
    createWalletClient({ account, chain, transport, pollingInterval: 50 });
  return { publicClient, walletFor };
}

/** The latest block's timestamp: expiries are set against the chain's clock, not the wall's. */
export async function chainNow(publicClient: PublicClient): Promise<number> {
  return Number((await publicClient.getBlock()).timestamp);
}

export const tokenBalance = (publicClient: PublicClient, address: Address) =>
  publicClient.readContract({
    address: LOCAL_TOKEN_ADDRESS,
    abi: testUsdcAbi,
    functionName: "balanceOf",
    args: [address],
  });

/** The name of the custom error (or "Error" for a revert string) a failed call carried. */
export async function revertOf(call: Promise<unknown>): Promise<{ name: string; args: unknown[] }> {
  try {
    await call;
  } catch (error) {
    const reverted =
      error instanceof BaseError
        ? error.walk((e) => e instanceof ContractFunctionRevertedError)
        : undefined;
    if (reverted instanceof ContractFunctionRevertedError && reverted.data) {
      return { name: reverted.data.errorName, args: [...(reverted.data.args ?? [])] };
    }
    if (reverted instanceof ContractFunctionRevertedError && reverted.reason) {
      return { name: "Error", args: [reverted.reason] };
    }
    throw error;
  }
  throw new Error("expected the call to revert, it succeeded");
}

export { authCaptureEscrowAbi };
