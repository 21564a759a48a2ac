// GET /api/v1/jobs/:id/payment: the job's live or latest settlement, or null (public).
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { getJobPayment } from "@/lib/payments/ledger/payment-view";

export const GET = route<{ id: string }>({}, async ({ params }) =>
  ok(await getJobPayment(await getDb(), params.id)),
);
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
