// GET /api/v1/webhooks/:id and DELETE /api/v1/webhooks/:id (the wallet's own only).
import { getDb } from "@/lib/db";
import { deleteWebhook, getWebhook } from "@/lib/events/webhooks";
import { ok, otherMethods, route } from "@/lib/api/http";

export const GET = route<{ id: string }>(
  { auth: true, scope: "read" },
  async ({ wallet, params }) => ok(await getWebhook(await getDb(), wallet, params.id)),
);

export const DELETE = route<{ id: string }>(
  { auth: true, scope: "read", rateLimit: "write" },
  async ({ wallet, params }) => ok(await deleteWebhook(await getDb(), wallet, params.id)),
);
export const { POST, PUT, PATCH } = otherMethods("GET, DELETE");
