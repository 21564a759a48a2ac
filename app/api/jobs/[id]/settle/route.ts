// POST /api/jobs/:id/settle?proposalId=... : the x402 v2 payment resource for a bid.
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { getDb } from "@/lib/db";
import {
  enforceWalletRateLimit,
  errorResponse,
  ok,
  otherMethods,
  publicUrl,
  route,
} from "@/lib/api/http";
import { claimedPayer } from "@/lib/payments/settle/payment-header";
import { settleJobPayment } from "@/lib/payments/settle/settle";
import { settleQuerySchema } from "@/lib/shared/schemas/payments";

export const POST = route<{ id: string }>(
  { rateLimit: "write" },
  async ({ req, params, query }) => {
    const { proposalId } = query(settleQuerySchema);
    const paymentHeader = req.headers.get("payment-signature");
    const payer = paymentHeader ? claimedPayer(paymentHeader) : undefined;
    if (payer) await enforceWalletRateLimit("write", payer);
    const outcome = await settleJobPayment(await getDb(), {
      jobId: params.id,
      proposalId,
      paymentHeader,
      resourceUrl: publicUrl(req),
    });
    if (outcome.kind === "payment_required") {
      return errorResponse(
        402,
        outcome.reason,
        {
          "PAYMENT-REQUIRED": encodePaymentRequiredHeader(outcome.paymentRequired),
          ...(outcome.paymentResponse
            ? { "PAYMENT-RESPONSE": encodePaymentResponseHeader(outcome.paymentResponse) }
            : {}),
        },
        outcome.code,
      );
    }
    return ok(outcome.data, {
      headers: {
        "PAYMENT-RESPONSE": encodePaymentResponseHeader(outcome.paymentResponse),
      },
    });
  },
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
