// GET /api/v1/webhooks (the wallet's subscriptions) and POST /api/v1/webhooks (create; the
// signing secret is in this answer only).
import { getDb } from "@/lib/db";
import { createWebhook, listWebhooks } from "@/lib/events/webhooks";
import { ok, otherMethods, route } from "@/lib/api/http";
import { createWebhookSchema } from "@/lib/shared/schemas/webhooks";

export const GET = route({ auth: true, scope: "read" }, async ({ wallet }) =>
  ok(await listWebhooks(await getDb(), wallet)),
);

export const POST = route(
  { auth: true, scope: "read", rateLimit: "write" },
  async ({ wallet, body }) =>
    ok(await createWebhook(await getDb(), wallet, await body(createWebhookSchema))),
);
export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");
