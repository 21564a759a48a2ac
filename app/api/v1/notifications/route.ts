// GET /api/v1/notifications: the caller's notifications, newest first, with the unread count.
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { listNotifications } from "@/lib/notifications/notifications";
import { listNotificationsQuerySchema } from "@/lib/shared/schemas/notifications";

export const GET = route({ auth: true, scope: "read" }, async ({ wallet, query }) => {
  const { items, nextCursor, unreadCount } = await listNotifications(
    await getDb(),
    wallet,
    query(listNotificationsQuerySchema),
  );
  return ok(items, { meta: { nextCursor, unreadCount } });
});
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
