// POST /api/v1/notifications/read { ids } | { upTo }: mark the caller's notifications read.
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { markNotificationsRead } from "@/lib/notifications/notifications";
import { markNotificationsReadSchema } from "@/lib/shared/schemas/notifications";

export const POST = route(
  { auth: true, scope: "read", rateLimit: "write" },
  async ({ wallet, body }) =>
    ok(await markNotificationsRead(await getDb(), wallet, await body(markNotificationsReadSchema))),
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
