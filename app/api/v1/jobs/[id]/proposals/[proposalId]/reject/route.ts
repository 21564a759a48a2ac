// POST /api/v1/jobs/:id/proposals/:proposalId/reject (poster only, job open).
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { rejectProposal } from "@/lib/marketplace/proposals";

export const POST = route<{ id: string; proposalId: string }>(
  { auth: true, scope: "post", rateLimit: "write" },
  async ({ wallet, params }) =>
    ok(await rejectProposal(await getDb(), wallet, params.id, params.proposalId)),
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
