// POST /api/v1/notifications/read: generated from lib/api/operations by `npm run routes:generate`.
import { markNotificationsReadOperation } from "@/lib/api/operations/conversations";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(markNotificationsReadOperation);
