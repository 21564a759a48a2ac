// GET /api/v1/notifications: generated from lib/api/operations by `npm run routes:generate`.
import { listNotificationsOperation } from "@/lib/api/operations/conversations";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(listNotificationsOperation);
