// GET /api/v1/webhooks/:id/deliveries?limit=&cursor= (the delivery log, newest first).
import { getDb } from "@/lib/db";
import { listDeliveries } from "@/lib/events/webhooks";
import { okPage, otherMethods, route } from "@/lib/api/http";
import { listDeliveriesQuerySchema } from "@/lib/shared/schemas/webhooks";

export const GET = route<{ id: string }>(
  { auth: true, scope: "read" },
  async ({ wallet, params, query }) =>
    okPage(
      await listDeliveries(await getDb(), wallet, params.id, query(listDeliveriesQuerySchema)),
    ),
);
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
