// GET /api/v1/jobs/:id
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { getJob } from "@/lib/marketplace/jobs";

export const GET = route<{ id: string }>({}, async ({ req, params }) =>
  ok(await getJob(await getDb(), params.id), { revalidate: req }),
);
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
