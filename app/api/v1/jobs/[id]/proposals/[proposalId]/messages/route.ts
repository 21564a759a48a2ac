// GET /api/v1/jobs/{id}/proposals/{proposalId}/messages, POST /api/v1/jobs/{id}/proposals/{proposalId}/messages: generated from lib/api/operations by `npm run routes:generate`.
import { postMessageOperation, readThreadOperation } from "@/lib/api/operations/conversations";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  readThreadOperation,
  postMessageOperation,
);
