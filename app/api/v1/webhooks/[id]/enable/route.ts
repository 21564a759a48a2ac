// POST /api/v1/webhooks/{id}/enable: generated from lib/api/operations by `npm run routes:generate`.
import { enableWebhookOperation } from "@/lib/api/operations/programs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(enableWebhookOperation);
