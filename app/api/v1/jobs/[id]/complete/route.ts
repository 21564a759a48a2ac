// POST /api/v1/jobs/{id}/complete: generated from lib/api/operations by `npm run routes:generate`.
import { completeJobOperation } from "@/lib/api/operations/jobs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(completeJobOperation);
