// What the payment resource answers (POST /api/jobs/:id/settle): settled with the ledger's
// hash, a 402 challenge with the reason, or 409 settlement_pending while the chain decides.
// The steps of the pipeline (./steps) end in a Resolution; ./settle.ts turns it into these.
import "server-only";
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentRequired, SettleResponse, PaymentRequirements } from "@x402/core/types";
import { type Address, getAddress } from "viem";
import type { Settlement } from "@/lib/generated/prisma/client";
import { DomainError } from "@/lib/platform/errors";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";
import { type RefusalCode, refusalMessage } from "./outcomes";

export interface SettlementData {
  txHash: string;
  network: string;
  payer: Address;
  payTo: Address;
  amountUsdc: number;
  jobId: string;
  proposalId: string;
}

/**
 * The answer of the payment resource. Errors that are not payment refusals (400 malformed
 * header, 404, 409 state or pending, 503) are thrown as DomainErrors with their code.
 */
export type SettleOutcome =
  | {
      kind: "payment_required";
      code: RefusalCode;
      reason: string;
      paymentRequired: PaymentRequired;
      /** Present when a settlement was attempted and the chain says it moved nothing. */
      paymentResponse?: SettleResponse;
    }
  | { kind: "settled"; data: SettlementData; paymentResponse: SettleResponse };

/** A 402 to answer: nothing moved. `response` when an attempt failed on chain. */
export interface Refusal {
  code: RefusalCode;
  detail?: string;
  response?: SettleResponse;
}

/** Where a step left the payment when it decided it. */
export type Resolution =
  | { kind: "settled"; row: Settlement }
  | { kind: "pending"; row: Settlement | null }
  | ({ kind: "refused" } & Refusal);

export const refused = (refusal: Refusal): Resolution => ({ kind: "refused", ...refusal });

/** Builds the 402 answers for one bid: a fresh PAYMENT-REQUIRED with each refusal. */
export function challengeFor(
  server: x402ResourceServer,
  required: PaymentRequirements,
  bid: { jobTitle: string; proposalId: string; bidAtomic: bigint; resourceUrl: string },
) {
  return async (refusal: Refusal): Promise<SettleOutcome> => ({
    kind: "payment_required",
    code: refusal.code,
    reason: refusalMessage(refusal.code, refusal.detail),
    paymentRequired: await server.createPaymentRequiredResponse(
      [required],
      {
        url: bid.resourceUrl,
        description: `${formatUsdc(atomicToUsdc(bid.bidAtomic), "plain")} USDC for job "${bid.jobTitle}" (proposal ${bid.proposalId})`,
        mimeType: "application/json",
      },
      refusal.code,
    ),
    ...(refusal.response ? { paymentResponse: refusal.response } : {}),
  });
}

/** 409 settlement_pending: the client retries the same signature or reads the payment. */
export function pendingError(row: Settlement | null): DomainError {
  const hash = row?.txHash ? ` (transaction ${row.txHash})` : "";
  return new DomainError(
    "conflict",
    `a payment for this job is being settled${hash}; the chain has not confirmed it yet. ` +
      "Retry the same PAYMENT-SIGNATURE or read GET /api/v1/jobs/:id/payment shortly",
    { "Retry-After": "5" },
    "settlement_pending",
  );
}

export function settledOutcome(row: Settlement): SettleOutcome {
  const txHash = row.txHash!;
  return {
    kind: "settled",
    data: {
      txHash,
      network: row.network,
      payer: getAddress(row.payer),
      payTo: getAddress(row.payTo),
      amountUsdc: atomicToUsdc(row.amountAtomic),
      jobId: row.jobId,
      proposalId: row.proposalId,
    },
    paymentResponse: {
      success: true,
      transaction: txHash,
      network: row.network as SettleResponse["network"],
      payer: getAddress(row.payer),
    },
  };
}

/** The PAYMENT-RESPONSE of an attempt the chain shows moved nothing. */
export function failedResponse(row: Settlement): SettleResponse {
  return {
    success: false,
    errorReason: row.failureCode ?? "settlement_failed",
    transaction: row.txHash ?? "",
    network: row.network as SettleResponse["network"],
    payer: getAddress(row.payer),
  };
}
