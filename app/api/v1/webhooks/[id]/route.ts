// GET /api/v1/webhooks/{id}, DELETE /api/v1/webhooks/{id}: generated from lib/api/operations by `npm run routes:generate`.
import { deleteWebhookOperation, getWebhookOperation } from "@/lib/api/operations/programs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  getWebhookOperation,
  deleteWebhookOperation,
);
