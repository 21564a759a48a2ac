// GET /api/v1/tokens, POST /api/v1/tokens: generated from lib/api/operations by `npm run routes:generate`.
import { createTokenOperation, listTokensOperation } from "@/lib/api/operations/programs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  listTokensOperation,
  createTokenOperation,
);
