// GET /api/health: generated from lib/api/operations by `npm run routes:generate`.
import { getHealthOperation } from "@/lib/api/operations/health";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(getHealthOperation);
