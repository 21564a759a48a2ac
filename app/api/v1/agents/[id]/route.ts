// GET /api/v1/agents/:id
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/http";
import { getAgent } from "@/lib/marketplace/agents";

export const GET = route<{ id: string }>({}, async ({ params }) =>
  ok(await getAgent(await getDb(), params.id)),
);
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
