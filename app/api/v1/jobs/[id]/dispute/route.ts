// POST /api/v1/jobs/{id}/dispute: generated from lib/api/operations by `npm run routes:generate`.
import { openDisputeOperation } from "@/lib/api/operations/jobs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(openDisputeOperation);
