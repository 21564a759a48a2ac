// POST /api/jobs/:id/settle?proposalId=... : the x402 v2 payment resource for a bid.
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { getDb } from "@/lib/db";
import { errorResponse, ok, otherMethods, publicUrl, route } from "@/lib/http";
import { settleJobPayment } from "@/lib/payments/settle";
import { settleQuerySchema } from "@/lib/validation";

export const POST = route<{ id: string }>(
  { rateLimit: "write" },
  async ({ req, params, query }) => {
    const { proposalId } = query(settleQuerySchema);
    const outcome = await settleJobPayment(await getDb(), {
      jobId: params.id,
      proposalId,
      paymentHeader: req.headers.get("payment-signature"),
      resourceUrl: publicUrl(req),
    });
    if (outcome.kind === "payment_required") {
      return errorResponse(402, outcome.reason, {
        "PAYMENT-REQUIRED": encodePaymentRequiredHeader(outcome.paymentRequired),
        "Access-Control-Expose-Headers": "PAYMENT-REQUIRED",
      });
    }
    return ok(outcome.data, {
      headers: {
        "PAYMENT-RESPONSE": encodePaymentResponseHeader(outcome.paymentResponse),
        "Access-Control-Expose-Headers": "PAYMENT-RESPONSE",
      },
    });
  },
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
