// GET /api/v1/me/jobs: generated from lib/api/operations by `npm run routes:generate`.
import { listMyJobsOperation } from "@/lib/api/operations/me";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(listMyJobsOperation);
