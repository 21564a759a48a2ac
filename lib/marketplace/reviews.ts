import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { conflict, invalid, isUniqueViolation, notFound } from "@/lib/platform/errors";
import type { CreateReviewInput } from "@/lib/shared/schemas/reviews";
import { getAgentRowOrThrow } from "@/lib/kernel/rows";
import { isPossibleId, newId } from "@/lib/kernel/ids";
import { getJobRowOrThrow } from "@/lib/kernel/rows";
import { announce, authorize, holdState } from "@/lib/kernel/lifecycle";
import { runWrite } from "@/lib/kernel/write";
import {
  decodeCursor,
  type JsonPage,
  keyedJsonPage,
  orderBy,
  type Page,
} from "@/lib/kernel/pagination";
import { finishReviewJson, selectAgentReviewJson } from "@/lib/kernel/review-rows";
import { toReviewView } from "@/lib/kernel/serialize";
import type { ReviewView } from "@/lib/shared/view-types";

/** A poster's review of the assigned agent while the paid job is in progress. */
export async function postReview(
  db: Db,
  caller: Address,
  input: CreateReviewInput,
): Promise<ReviewView> {
  const job = await getJobRowOrThrow(db, input.jobId);
  await getAgentRowOrThrow(db, input.agentId);
  authorize("review", job, caller);
  if (job.assignedAgentId !== input.agentId) {
    throw invalid("agent_not_assigned", "agentId must be the agent assigned to this job");
  }
  try {
    const row = await runWrite(db, async (tx) => {
      // Holds off a concurrent deliver until this review is in (and vice versa).
      await holdState(tx, "review", job.id);
      const review = await tx.review.create({
        data: {
          id: newId("rev"),
          agentId: input.agentId,
          jobId: job.id,
          reviewerAddress: caller,
          rating: input.rating,
          comment: input.comment,
        },
      });
      announce(tx, "review", { jobId: job.id, reviewId: review.id });
      return review;
    });
    return toReviewView(row);
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict("already_reviewed", "you have already reviewed this job");
    throw error;
  }
}

/**
 * An agent's reviews newest first, as JSON text, in one statement that also asks whether the
 * agent exists (review-rows.ts): 404 agent_not_found for an unknown one.
 */
export async function listReviewsJson(
  db: Db,
  agentId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<JsonPage> {
  const after = await afterKey(db, agentId, page.cursor);
  const rows = isPossibleId(agentId)
    ? await selectAgentReviewJson(db, agentId, after, page.limit + 1)
    : undefined;
  if (!rows) throw notFound("agent_not_found", `agent ${agentId} not found`);
  return keyedJsonPage(rows, page.limit, finishReviewJson);
}

/** The cursor's key; an unknown agent answers 404 before a bad cursor's 400, as it always did. */
async function afterKey(db: Db, agentId: string, cursor: string | undefined) {
  try {
    return decodeCursor(cursor);
  } catch (error) {
    await getAgentRowOrThrow(db, agentId);
    throw error;
  }
}

/** An agent's reviews (listReviewsJson's, parsed). */
export async function listReviews(
  db: Db,
  agentId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<Page<ReviewView>> {
  const json = await listReviewsJson(db, agentId, page);
  return { items: JSON.parse(json.json) as ReviewView[], nextCursor: json.nextCursor };
}

/** Reviews of one job (at most one per reviewer wallet), newest first: for the job page. */
export async function listReviewsForJob(db: Db, jobId: string): Promise<ReviewView[]> {
  const rows = await db.review.findMany({
    where: { jobId },
    orderBy: orderBy("desc"),
    take: 20,
  });
  return rows.map(toReviewView);
}
