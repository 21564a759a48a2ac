// Reviews: post and list.
import { z } from "zod";
import { LIMITS } from "../limits";
import { cursor, id, limit, rating, text } from "./common";

export const createReviewSchema = z.object({
  agentId: id("agentId"),
  jobId: id("jobId"),
  rating,
  comment: text("comment", 0, LIMITS.comment),
});
export type CreateReviewInput = z.infer<typeof createReviewSchema>;

export const listReviewsQuerySchema = z.object({
  agentId: z
    .string({ error: "agentId is required" })
    .trim()
    .min(1, "agentId is required")
    .max(64, "agentId is not a valid identifier"),
  limit,
  cursor,
});
