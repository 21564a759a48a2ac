// GET /api/v1/me/earnings: generated from lib/api/operations by `npm run routes:generate`.
import { getMyEarningsOperation } from "@/lib/api/operations/me";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(getMyEarningsOperation);
