// POST /api/v1/jobs/:id/complete { rating?, comment? } (poster only). With an access token:
// the "post" scope, and "review" too when a rating makes it a review.
import { assertScope } from "@/lib/auth/caller";
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { completeJob } from "@/lib/marketplace/transitions";
import { completeSchema } from "@/lib/shared/schemas/jobs";

export const POST = route<{ id: string }>(
  { auth: true, scope: "post", rateLimit: "write" },
  async ({ wallet, caller, params, body }) => {
    const input = await body(completeSchema);
    if (input.rating !== undefined) assertScope(caller, "review");
    return ok(await completeJob(await getDb(), wallet, params.id, input));
  },
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
