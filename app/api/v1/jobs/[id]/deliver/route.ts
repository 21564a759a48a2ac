// POST /api/v1/jobs/{id}/deliver: generated from lib/api/operations by `npm run routes:generate`.
import { deliverJobOperation } from "@/lib/api/operations/jobs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(deliverJobOperation);
