// POST /api/mcp: generated from lib/api/operations by `npm run routes:generate`.
import { mcpOperation } from "@/lib/api/operations/meta";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(mcpOperation);
