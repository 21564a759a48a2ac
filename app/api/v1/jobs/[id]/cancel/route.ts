// POST /api/v1/jobs/{id}/cancel: generated from lib/api/operations by `npm run routes:generate`.
import { cancelJobOperation } from "@/lib/api/operations/jobs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(cancelJobOperation);
