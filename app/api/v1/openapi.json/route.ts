// GET /api/v1/openapi.json: generated from lib/api/operations by `npm run routes:generate`.
import { getOpenApiOperation } from "@/lib/api/operations/meta";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(getOpenApiOperation);
