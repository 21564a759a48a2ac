// GET /api/v1/reviews, POST /api/v1/reviews: generated from lib/api/operations by `npm run routes:generate`.
import { listReviewsOperation, postReviewOperation } from "@/lib/api/operations/agents";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  listReviewsOperation,
  postReviewOperation,
);
