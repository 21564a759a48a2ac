// GET /api/v1/jobs/{id}/payment: generated from lib/api/operations by `npm run routes:generate`.
import { getPaymentOperation } from "@/lib/api/operations/proposals";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(getPaymentOperation);
