// GET /api/v1/jobs (filters, cursor pages) and POST /api/v1/jobs (create, session).
import { getDb } from "@/lib/db";
import { created, okPage, otherMethods, route } from "@/lib/api/http";
import { createJob, listJobs } from "@/lib/marketplace/jobs";
import { createJobSchema, listJobsQuerySchema } from "@/lib/shared/schemas/jobs";

export const GET = route({}, async ({ req, query }) =>
  okPage(await listJobs(await getDb(), query(listJobsQuerySchema)), { revalidate: req }),
);

export const POST = route(
  { auth: true, scope: "post", rateLimit: "write" },
  async ({ wallet, body }) =>
    created(await createJob(await getDb(), wallet, await body(createJobSchema))),
);
export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");
