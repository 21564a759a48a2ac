// POST /api/v1/jobs/:id/proposals/:proposalId/messages/read { upTo? }: mark a proposal's
// private thread read for the caller (reading it with GET changes nothing).
import { markThreadRead } from "@/lib/conversations/threads";
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { markThreadReadSchema } from "@/lib/shared/schemas/conversations";

type Params = { id: string; proposalId: string };

export const POST = route<Params>(
  { auth: true, scope: "read", rateLimit: "write" },
  async ({ wallet, params, body }) =>
    ok(
      await markThreadRead(
        await getDb(),
        wallet,
        params.id,
        params.proposalId,
        await body(markThreadReadSchema),
      ),
    ),
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
