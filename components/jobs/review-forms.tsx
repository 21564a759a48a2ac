"use client";

import { useRouter } from "next/navigation";
import { Field, FormError, Spinner } from "@/components/forms/fields";
import { api, callApi } from "@/components/api-client";
import { useApiForm } from "@/components/forms/use-api-form";
import { humanize, parseNumber, text } from "@/components/forms/validation";
import { LIMITS } from "@/lib/shared/limits";
import { completeSchema } from "@/lib/shared/schemas/jobs";
import { createReviewSchema } from "@/lib/shared/schemas/reviews";
import { RatingInput } from "./rating-input";

const LABELS = { rating: "Rating", comment: "Comment" } as const;

/** Poster: confirm the delivery (completes the job), with an optional rating and comment. */
export function CompleteForm({
  jobId,
  alreadyReviewed,
}: {
  jobId: string;
  alreadyReviewed: boolean;
}) {
  const router = useRouter();
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: completeSchema,
    labels: LABELS,
    input: (form) => {
      const rating = parseNumber(form.get("rating"));
      const comment = text(form.get("comment")).trim();
      return alreadyReviewed
        ? {}
        : { ...(rating !== undefined ? { rating } : {}), ...(comment ? { comment } : {}) };
    },
    // The only cross-field rule: a comment needs a rating.
    clientErrors: (next, _input, error) =>
      Object.keys(next).length > 0
        ? next
        : { rating: humanize(error.issues[0]?.message ?? "", LABELS) },
    focusErrors: false,
    serverFieldErrors: false,
    submit: (body) =>
      callApi(api.POST("/api/v1/jobs/{id}/complete", { params: { path: { id: jobId } }, body })),
    onSuccess: () => router.refresh(),
  });

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label="Complete the job">
      <FormError message={serverError} />
      {alreadyReviewed ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          You already reviewed this agent for this job.
        </p>
      ) : (
        <>
          <RatingInput
            name="rating"
            legend="Rate the agent"
            optional
            error={errors.rating}
            idPrefix={`complete-rating-${jobId}`}
          />
          <Field id={`complete-comment-${jobId}`} label="Comment" optional error={errors.comment}>
            {(props) => (
              <textarea
                {...props}
                name="comment"
                rows={3}
                className="input"
                maxLength={LIMITS.comment}
                placeholder="How did it go?"
              />
            )}
          </Field>
        </>
      )}
      <div className="flex justify-end">
        <button type="submit" className="btn btn-primary" disabled={!canSubmit}>
          {pending ? <Spinner /> : null}
          {pending ? "Completing…" : "Confirm delivery & complete"}
        </button>
      </div>
    </form>
  );
}

/** Poster: review the assigned agent while the paid job is in progress. */
export function ReviewForm({ jobId, agentId }: { jobId: string; agentId: string }) {
  const router = useRouter();
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: createReviewSchema,
    labels: LABELS,
    input: (form) => ({
      agentId,
      jobId,
      rating: parseNumber(form.get("rating")),
      comment: text(form.get("comment")),
    }),
    clientErrors: (next, input) =>
      input.rating === undefined ? { ...next, rating: "Choose a rating from 1 to 5 stars" } : next,
    focusErrors: false,
    serverFieldErrors: false,
    submit: (body) => callApi(api.POST("/api/v1/reviews", { body })),
    onSuccess: () => router.refresh(),
  });

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label="Review the agent">
      <FormError message={serverError} />
      <RatingInput
        name="rating"
        legend="Rating"
        error={errors.rating}
        idPrefix={`review-rating-${jobId}`}
      />
      <Field id={`review-comment-${jobId}`} label="Comment" optional error={errors.comment}>
        {(props) => (
          <textarea
            {...props}
            name="comment"
            rows={3}
            className="input"
            maxLength={LIMITS.comment}
          />
        )}
      </Field>
      <div className="flex justify-end">
        <button type="submit" className="btn btn-secondary" disabled={!canSubmit}>
          {pending ? <Spinner /> : null}
          {pending ? "Posting…" : "Post review"}
        </button>
      </div>
    </form>
  );
}
