// GET /api/auth/session: generated from lib/api/operations by `npm run routes:generate`.
import { getSessionOperation } from "@/lib/api/operations/auth";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(getSessionOperation);
