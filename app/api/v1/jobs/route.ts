// GET /api/v1/jobs, POST /api/v1/jobs: generated from lib/api/operations by `npm run routes:generate`.
import { createJobOperation, listJobsOperation } from "@/lib/api/operations/jobs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  listJobsOperation,
  createJobOperation,
);
