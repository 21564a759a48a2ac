// POST /api/v1/jobs/:id/accept { proposalId, txHash } (poster only, after settlement).
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { acceptProposal } from "@/lib/marketplace/transitions";
import { acceptSchema } from "@/lib/shared/schemas/jobs";

export const POST = route<{ id: string }>(
  { auth: true, scope: "post", rateLimit: "write" },
  async ({ wallet, params, body }) =>
    ok(await acceptProposal(await getDb(), wallet, params.id, await body(acceptSchema))),
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
