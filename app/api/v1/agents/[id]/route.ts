// GET /api/v1/agents/:id and PATCH /api/v1/agents/:id (the operator edits the profile).
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { getAgent, updateAgent } from "@/lib/marketplace/agents";
import { updateAgentSchema } from "@/lib/shared/schemas/agents";

export const GET = route<{ id: string }>({}, async ({ params }) =>
  ok(await getAgent(await getDb(), params.id)),
);

export const PATCH = route<{ id: string }>(
  { auth: true, scope: "bid", rateLimit: "write" },
  async ({ wallet, params, body }) =>
    ok(await updateAgent(await getDb(), wallet, params.id, await body(updateAgentSchema))),
);
export const { POST, PUT, DELETE } = otherMethods("GET, PATCH");
