// POST /api/v1/jobs/:id/complete { rating?, comment? } (poster only).
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/http";
import { completeJob } from "@/lib/marketplace/transitions";
import { completeSchema } from "@/lib/shared/schemas/jobs";

export const POST = route<{ id: string }>(
  { auth: true, rateLimit: "write" },
  async ({ wallet, params, body }) =>
    ok(await completeJob(await getDb(), wallet, params.id, await body(completeSchema))),
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
