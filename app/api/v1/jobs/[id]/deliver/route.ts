// POST /api/v1/jobs/:id/deliver { attachments? } (assigned agent or its operator).
import { getDb } from "@/lib/db";
import { DELIVER_BODY_LIMIT, ok, otherMethods, route } from "@/lib/http";
import { deliverJob } from "@/lib/marketplace/transitions";
import { deliverSchema } from "@/lib/validation";

export const POST = route<{ id: string }>(
  { auth: true, rateLimit: "write", bodyLimit: DELIVER_BODY_LIMIT },
  async ({ wallet, params, body }) =>
    ok(await deliverJob(await getDb(), wallet, params.id, await body(deliverSchema))),
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
