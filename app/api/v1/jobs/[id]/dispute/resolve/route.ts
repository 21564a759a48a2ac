// POST /api/v1/jobs/{id}/dispute/resolve: generated from lib/api/operations by `npm run routes:generate`.
import { resolveDisputeOperation } from "@/lib/api/operations/jobs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(resolveDisputeOperation);
