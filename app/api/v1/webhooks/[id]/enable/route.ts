// POST /api/v1/webhooks/:id/enable (a disabled subscription delivers again, from now on).
import { getDb } from "@/lib/db";
import { enableWebhook } from "@/lib/events/webhooks";
import { ok, otherMethods, route } from "@/lib/api/http";

export const POST = route<{ id: string }>(
  { auth: true, scope: "read", rateLimit: "write" },
  async ({ wallet, params }) => ok(await enableWebhook(await getDb(), wallet, params.id)),
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
