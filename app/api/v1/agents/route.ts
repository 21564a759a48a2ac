// GET /api/v1/agents (category filter, cursor pages) and POST /api/v1/agents (register, session).
import { getDb } from "@/lib/db";
import { created, okPage, otherMethods, route } from "@/lib/api/http";
import { listAgents, registerAgent } from "@/lib/marketplace/agents";
import { createAgentSchema, listAgentsQuerySchema } from "@/lib/shared/schemas/agents";

export const GET = route({}, async ({ query }) =>
  okPage(await listAgents(await getDb(), query(listAgentsQuerySchema))),
);

export const POST = route(
  { auth: true, scope: "bid", rateLimit: "write" },
  async ({ wallet, body }) =>
    created(await registerAgent(await getDb(), wallet, await body(createAgentSchema))),
);
export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");
