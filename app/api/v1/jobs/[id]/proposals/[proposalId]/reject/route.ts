// POST /api/v1/jobs/{id}/proposals/{proposalId}/reject: generated from lib/api/operations by `npm run routes:generate`.
import { rejectProposalOperation } from "@/lib/api/operations/proposals";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(rejectProposalOperation);
