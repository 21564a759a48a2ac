// What a protected payment's settlement row keeps of its terms (settlements.escrowTerms),
// fixed when its slot is claimed: the PaymentInfo the operator authorizes, the contracts, and
// the delivery deadline the poster was shown.
import { type Address, getAddress } from "viem";
import type { Settlement } from "@/lib/generated/prisma/client";
import {
  loadPaymentInfo,
  type PaymentInfo,
  type StoredPaymentInfo,
  storePaymentInfo,
} from "./payment-info";

export interface EscrowTerms {
  paymentInfo: PaymentInfo;
  escrow: Address;
  collector: Address;
  /** Chain seconds: from then on an undelivered job may be cancelled. */
  deliverBy: number;
}

interface StoredEscrowTerms {
  paymentInfo: StoredPaymentInfo;
  escrow: string;
  collector: string;
  deliverBy: number;
}

export function storeEscrowTerms(terms: EscrowTerms): StoredEscrowTerms {
  return {
    paymentInfo: storePaymentInfo(terms.paymentInfo),
    escrow: terms.escrow,
    collector: terms.collector,
    deliverBy: terms.deliverBy,
  };
}

/** The row's terms; null for a pay-now settlement. */
export function escrowTermsOf(row: Pick<Settlement, "scheme" | "escrowTerms">): EscrowTerms | null {
  if (row.scheme !== "auth_capture" || row.escrowTerms === null) return null;
  const stored = row.escrowTerms as unknown as StoredEscrowTerms;
  return {
    paymentInfo: loadPaymentInfo(stored.paymentInfo),
    escrow: getAddress(stored.escrow),
    collector: getAddress(stored.collector),
    deliverBy: stored.deliverBy,
  };
}

/**
 * Where the payer's EIP-3009 transfer goes: the payee for pay-now, the escrow's ERC-3009
 * collector for a protected payment (which passes it on into the operator's token store).
 */
export function transferRecipientOf(row: Pick<Settlement, "scheme" | "escrowTerms" | "payTo">) {
  return escrowTermsOf(row)?.collector ?? getAddress(row.payTo);
}
