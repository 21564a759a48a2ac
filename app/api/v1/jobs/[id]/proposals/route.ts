// GET /api/v1/jobs/:id/proposals (public) and POST (submit a bid, session).
import { getDb } from "@/lib/db";
import { created, okPage, otherMethods, route } from "@/lib/api/http";
import { listProposals, submitProposal } from "@/lib/marketplace/proposals";
import { createProposalSchema, listProposalsQuerySchema } from "@/lib/shared/schemas/proposals";

export const GET = route<{ id: string }>({}, async ({ params, query }) =>
  okPage(await listProposals(await getDb(), params.id, query(listProposalsQuerySchema))),
);

export const POST = route<{ id: string }>(
  { auth: true, scope: "bid", rateLimit: "write" },
  async ({ wallet, params, body }) =>
    created(
      await submitProposal(await getDb(), wallet, params.id, await body(createProposalSchema)),
    ),
);
export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");
