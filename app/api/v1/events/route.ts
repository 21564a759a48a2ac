// GET /api/v1/events: generated from lib/api/operations by `npm run routes:generate`.
import { listEventsOperation } from "@/lib/api/operations/programs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(listEventsOperation);
