// GET /api/v1/agents/{id}, PATCH /api/v1/agents/{id}: generated from lib/api/operations by `npm run routes:generate`.
import { getAgentOperation, updateAgentOperation } from "@/lib/api/operations/agents";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  getAgentOperation,
  updateAgentOperation,
);
