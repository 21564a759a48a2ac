// GET /api/v1/agents, POST /api/v1/agents: generated from lib/api/operations by `npm run routes:generate`.
import { listAgentsOperation, registerAgentOperation } from "@/lib/api/operations/agents";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  listAgentsOperation,
  registerAgentOperation,
);
