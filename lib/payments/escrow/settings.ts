// Where protected payments live and under which terms: the Commerce Payments v1.1.0 contracts
// (on Base, the audited deployment at its published addresses; on the local chain, our
// stand-in installed at the same addresses), the operator's key, the fee and the windows.
import { type Address, getAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ConfigError, getConfig } from "@/lib/platform/config";
import { COMMERCE_PAYMENTS_V1_1 } from "../chain/escrow-deployments";
import { PUBLIC_TEST_ADDRESSES } from "../chain/local-network";
import { getSettlementNetwork } from "../chain/network";

export interface EscrowSettings {
  escrow: Address;
  collector: Address;
  operatorKey: Hex;
  operator: Address;
  feeBps: number;
  /** Where fees go; the operator when there is no fee (the contract wants an address). */
  feeReceiver: Address;
  graceSeconds: number;
  reviewSeconds: number;
  disputeSeconds: number;
  /** refundExpiry - authorizationExpiry: how long a released payment may still be refunded. */
  refundSeconds: number;
  admins: readonly Address[];
}

export const REFUND_WINDOW_SECONDS = 30 * 86_400;

/** The settings, or null when protected payments are off (no operator key). */
export function getEscrowSettings(): EscrowSettings | null {
  const cache = globalThis as typeof globalThis & { __escrowSettings?: EscrowSettings | null };
  if (cache.__escrowSettings !== undefined) return cache.__escrowSettings;
  const config = getConfig();
  const key = config.ESCROW_OPERATOR_PRIVATE_KEY as Hex | undefined;
  let settings: EscrowSettings | null = null;
  if (key) {
    const operator = privateKeyToAccount(key).address;
    if (
      getSettlementNetwork().name === "base" &&
      (PUBLIC_TEST_ADDRESSES as readonly string[]).includes(operator)
    ) {
      throw new ConfigError(
        "ESCROW_OPERATOR_PRIVATE_KEY is one of ganache's public test keys: refused with SETTLEMENT_NETWORK=base.",
      );
    }
    if (getSettlementNetwork().name === "base" && !config.BASE_RPC_URL) {
      throw new ConfigError(
        "ESCROW_OPERATOR_PRIVATE_KEY with SETTLEMENT_NETWORK=base also needs BASE_RPC_URL (the operator sends its own transactions).",
      );
    }
    if (config.PLATFORM_FEE_BPS > 0 && !config.PLATFORM_FEE_RECEIVER) {
      throw new ConfigError("PLATFORM_FEE_BPS above 0 needs PLATFORM_FEE_RECEIVER.");
    }
    settings = {
      escrow: getAddress(COMMERCE_PAYMENTS_V1_1.authCaptureEscrow),
      collector: getAddress(COMMERCE_PAYMENTS_V1_1.erc3009PaymentCollector),
      operatorKey: key,
      operator,
      feeBps: config.PLATFORM_FEE_BPS,
      feeReceiver: getAddress(config.PLATFORM_FEE_RECEIVER ?? operator),
      graceSeconds: config.ESCROW_GRACE_HOURS * 3600,
      reviewSeconds: config.ESCROW_REVIEW_HOURS * 3600,
      disputeSeconds: config.ESCROW_DISPUTE_HOURS * 3600,
      refundSeconds: REFUND_WINDOW_SECONDS,
      admins: (config.ADMIN_ADDRESSES ?? "")
        .split(",")
        .map((a) => a.trim())
        .filter(Boolean)
        .map((a) => getAddress(a)),
    };
  }
  cache.__escrowSettings = settings;
  return settings;
}
