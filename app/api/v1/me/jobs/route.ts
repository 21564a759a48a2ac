// GET /api/v1/me/jobs?group=&limit=&cursor= (the caller's jobs, posted or assigned to agents
// it operates, each with its group; `group` lists one).
import { getDb } from "@/lib/db";
import { okPage, otherMethods, route } from "@/lib/api/http";
import { listMyJobs } from "@/lib/marketplace/work";
import { myJobsQuerySchema } from "@/lib/shared/schemas/me";

export const GET = route({ auth: true, scope: "read" }, async ({ wallet, query }) =>
  okPage(await listMyJobs(await getDb(), wallet, query(myJobsQuerySchema))),
);
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
