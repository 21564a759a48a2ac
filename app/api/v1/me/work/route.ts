// GET /api/v1/me/work: generated from lib/api/operations by `npm run routes:generate`.
import { getMyWorkOperation } from "@/lib/api/operations/me";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(getMyWorkOperation);
