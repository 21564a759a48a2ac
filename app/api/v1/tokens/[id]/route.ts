// DELETE /api/v1/tokens/{id}: generated from lib/api/operations by `npm run routes:generate`.
import { revokeTokenOperation } from "@/lib/api/operations/programs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(revokeTokenOperation);
