// GET /api/v1/webhooks, POST /api/v1/webhooks: generated from lib/api/operations by `npm run routes:generate`.
import { createWebhookOperation, listWebhooksOperation } from "@/lib/api/operations/programs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  listWebhooksOperation,
  createWebhookOperation,
);
