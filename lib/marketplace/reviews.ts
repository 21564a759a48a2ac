import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { conflict, invalid, isUniqueViolation } from "@/lib/platform/errors";
import type { CreateReviewInput } from "@/lib/shared/schemas/reviews";
import { getAgentRowOrThrow } from "@/lib/kernel/rows";
import { newId } from "@/lib/kernel/ids";
import { getJobRowOrThrow } from "@/lib/kernel/rows";
import { announce, authorize, holdState } from "@/lib/kernel/lifecycle";
import { runWrite } from "@/lib/kernel/write";
import { afterCursor, decodeCursor, orderBy, type Page, toPage } from "@/lib/kernel/pagination";
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

export async function listReviews(
  db: Db,
  agentId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<Page<ReviewView>> {
  await getAgentRowOrThrow(db, agentId);
  const rows = await db.review.findMany({
    where: { agentId, ...afterCursor(decodeCursor(page.cursor), "desc") },
    orderBy: orderBy("desc"),
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, toReviewView);
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
