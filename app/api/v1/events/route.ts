// GET /api/v1/events?after=&types=&category=&jobId=&limit=&wait= (public; long-poll with wait).
import { addressSubject, requestClientAddress } from "@/lib/platform/client-address";
import { getDb } from "@/lib/db";
import { readEvents } from "@/lib/events/feed";
import { ok, otherMethods, route } from "@/lib/api/http";
import { listEventsQuerySchema } from "@/lib/shared/schemas/events";

export const GET = route({}, async ({ req, query }) => {
  const page = await readEvents(await getDb(), query(listEventsQuerySchema), {
    signal: req.signal,
    client: addressSubject(requestClientAddress(req)),
  });
  return ok(page.items, { meta: { nextCursor: page.nextCursor, hasMore: page.hasMore } });
});
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
