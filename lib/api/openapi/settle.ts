// POST /api/jobs/{id}/settle: the x402 v2 payment resource for one bid. Its headers are
// base64-encoded JSON (x402 HTTP transport); every outcome carries the contract's code.
import { z } from "zod";
import type { ZodOpenApiOperationObject } from "zod-openapi";
import { REFUSAL_CODES } from "@/lib/payments/settle/outcomes";
import { envelope, errorBodySchema, settlementViewSchema } from "@/lib/shared/schemas/views";

const base64Json = (description: string) => z.string().meta({ description });

const PAYMENT_REQUIRED = base64Json(
  "Base64 JSON of the x402 v2 PaymentRequired: { x402Version: 2, accepts: [{ scheme: " +
    '"exact", network, asset, amount (atomic USDC), payTo (the agent), maxTimeoutSeconds, ' +
    "extra: { name, version } }], resource, error }.",
);
const PAYMENT_RESPONSE = base64Json(
  "Base64 JSON of the x402 v2 SettleResponse: { success, transaction, network, payer, " +
    "errorReason? }. On a failed settlement success is false.",
);

function coded(description: string, codes: readonly string[], example: string) {
  return {
    description: `${description} Codes: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
    content: {
      "application/json": {
        schema: errorBodySchema,
        examples: Object.fromEntries(
          codes.map((code) => [code, { value: { error: example, code } }]),
        ),
      },
    },
  };
}

/**
 * What the x402 resource's document says beyond its contract: the payment headers, and each
 * outcome's codes with what to do (lib/api/operations/proposals.ts, settlePaymentOperation).
 */
export const settleDocs: Partial<ZodOpenApiOperationObject> = {
  requestParams: {
    header: z.object({
      "payment-signature": base64Json(
        "Base64 JSON of the x402 v2 PaymentPayload (exact scheme, EIP-3009 authorization).",
      ).optional(),
    }),
  },
  responses: {
    "200": {
      description: "Settled. Accept the proposal with data.txHash.",
      headers: z.object({ "payment-response": PAYMENT_RESPONSE }),
      content: { "application/json": { schema: envelope(settlementViewSchema) } },
    },
    "402": {
      ...coded(
        "The challenge (`payment_required`), or a refusal: nothing moved; sign a new " +
          "authorization. `settlement_failed` also carries PAYMENT-RESPONSE.",
        REFUSAL_CODES,
        "payment required: sign the USDC authorization and send it as PAYMENT-SIGNATURE",
      ),
      headers: z.object({
        "payment-required": PAYMENT_REQUIRED,
        "payment-response": PAYMENT_RESPONSE.optional(),
      }),
    },
    "409": {
      ...coded(
        "The job or proposal moved on, it is paid, a payment is still settling (wait, then send " +
          "the same signature again), or the bid pays its own poster or a payee that never agreed.",
        [
          "settlement_pending",
          "already_paid",
          "job_not_open",
          "proposal_not_pending",
          "self_payment",
          "payee_consent_pending",
        ],
        "a payment for this job is being settled; the chain has not confirmed it yet",
      ),
      headers: z.object({ "retry-after": z.string().optional() }),
    },
    "503": {
      ...coded(
        "The facilitator or the chain is unreachable before anything was charged; retry the " +
          "same signature.",
        ["facilitator_unavailable", "chain_unavailable"],
        "the payment service is unavailable; retry shortly",
      ),
      headers: z.object({ "retry-after": z.string().optional() }),
    },
  },
};
