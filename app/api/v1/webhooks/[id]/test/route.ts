// POST /api/v1/webhooks/:id/test (sends a signed webhook.test message now; answers its delivery).
import { getDb } from "@/lib/db";
import { sendTestEvent } from "@/lib/events/webhooks";
import { ok, otherMethods, route } from "@/lib/api/http";

export const POST = route<{ id: string }>(
  { auth: true, scope: "read", rateLimit: "write" },
  async ({ wallet, params }) => ok(await sendTestEvent(await getDb(), wallet, params.id)),
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
