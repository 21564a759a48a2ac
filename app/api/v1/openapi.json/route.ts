// GET /api/v1/openapi.json: the API's OpenAPI 3.1 document (lib/openapi/document.ts).
import { otherMethods, route } from "@/lib/api/http";
import { apiDocument } from "@/lib/api/openapi/document";

export const GET = route({}, async () =>
  Response.json(apiDocument(), { headers: { "Cache-Control": "public, max-age=300" } }),
);
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
