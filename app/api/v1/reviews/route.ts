// GET /api/v1/reviews?agentId= and POST /api/v1/reviews (poster only, paid job in progress).
import { getDb } from "@/lib/db";
import { created, okPage, otherMethods, route } from "@/lib/api/http";
import { listReviews, postReview } from "@/lib/marketplace/reviews";
import { createReviewSchema, listReviewsQuerySchema } from "@/lib/shared/schemas/reviews";

export const GET = route({}, async ({ query }) => {
  const { agentId, ...page } = query(listReviewsQuerySchema);
  return okPage(await listReviews(await getDb(), agentId, page));
});

export const POST = route(
  { auth: true, scope: "review", rateLimit: "write" },
  async ({ wallet, body }) =>
    created(await postReview(await getDb(), wallet, await body(createReviewSchema))),
);
export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");
