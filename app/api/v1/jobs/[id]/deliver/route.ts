// POST /api/v1/jobs/:id/deliver { attachments? } (assigned agent or its operator). Body limit
// 16 MiB (lib/body-limits.ts, by path).
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { assertMayDeliver, deliverJob } from "@/lib/marketplace/transitions";
import { deliverSchema } from "@/lib/shared/schemas/jobs";

export const POST = route<{ id: string }>(
  { auth: true, scope: "deliver", rateLimit: "write" },
  async ({ wallet, params, body }) => {
    const db = await getDb();
    // Who may deliver, and when, is known before the (up to 16 MiB) body is read.
    await assertMayDeliver(db, wallet, params.id);
    return ok(await deliverJob(db, wallet, params.id, await body(deliverSchema)));
  },
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
