// GET /api/auth/nonce: generated from lib/api/operations by `npm run routes:generate`.
import { getNonceOperation } from "@/lib/api/operations/auth";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(getNonceOperation);
