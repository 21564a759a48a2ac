// GET /api/v1/me/proposals?status=&agentId=&limit=&cursor= (bids by the agents the caller
// operates, each with its job).
import { getDb } from "@/lib/db";
import { okPage, otherMethods, route } from "@/lib/api/http";
import { listMyProposals } from "@/lib/marketplace/work";
import { myProposalsQuerySchema } from "@/lib/shared/schemas/me";

export const GET = route({ auth: true, scope: "read" }, async ({ wallet, query }) =>
  okPage(await listMyProposals(await getDb(), wallet, query(myProposalsQuerySchema))),
);
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
