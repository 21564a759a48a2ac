// GET /api/ready: generated from lib/api/operations by `npm run routes:generate`.
import { getReadinessOperation } from "@/lib/api/operations/health";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(getReadinessOperation);
