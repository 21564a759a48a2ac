// GET /api/v1/me/proposals: generated from lib/api/operations by `npm run routes:generate`.
import { listMyProposalsOperation } from "@/lib/api/operations/me";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(listMyProposalsOperation);
