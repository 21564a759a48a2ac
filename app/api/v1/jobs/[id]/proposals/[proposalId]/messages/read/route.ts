// POST /api/v1/jobs/{id}/proposals/{proposalId}/messages/read: generated from lib/api/operations by `npm run routes:generate`.
import { markThreadReadOperation } from "@/lib/api/operations/conversations";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(markThreadReadOperation);
