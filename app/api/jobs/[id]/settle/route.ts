// POST /api/jobs/{id}/settle: generated from lib/api/operations by `npm run routes:generate`.
import { settlePaymentOperation } from "@/lib/api/operations/proposals";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(settlePaymentOperation);
