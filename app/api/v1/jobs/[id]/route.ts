// GET /api/v1/jobs/{id}: generated from lib/api/operations by `npm run routes:generate`.
import { getJobOperation } from "@/lib/api/operations/jobs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(getJobOperation);
