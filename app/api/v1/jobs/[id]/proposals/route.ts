// GET /api/v1/jobs/{id}/proposals, POST /api/v1/jobs/{id}/proposals: generated from lib/api/operations by `npm run routes:generate`.
import { listProposalsOperation, submitProposalOperation } from "@/lib/api/operations/proposals";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  listProposalsOperation,
  submitProposalOperation,
);
