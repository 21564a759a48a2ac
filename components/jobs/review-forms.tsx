"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { postJson } from "@/components/forms/api";
import { Field, FormError, Spinner } from "@/components/forms/fields";
import {
  type FieldErrors,
  fieldErrors,
  humanize,
  parseNumber,
  text,
} from "@/components/forms/validation";
import { completeSchema, createReviewSchema, LIMITS } from "@/lib/validation";
import { RatingInput } from "./rating-input";

const LABELS = { rating: "Rating", comment: "Comment" } as const;
type FieldName = keyof typeof LABELS;

/** Poster: confirm the delivery (completes the job), with an optional rating and comment. */
export function CompleteForm({
  jobId,
  alreadyReviewed,
}: {
  jobId: string;
  alreadyReviewed: boolean;
}) {
  const router = useRouter();
  const [errors, setErrors] = useState<FieldErrors<FieldName>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const rating = parseNumber(form.get("rating"));
    const comment = text(form.get("comment")).trim();
    const input = alreadyReviewed
      ? {}
      : { ...(rating !== undefined ? { rating } : {}), ...(comment ? { comment } : {}) };
    const parsed = completeSchema.safeParse(input);
    setServerError(null);
    if (!parsed.success) {
      // The only cross-field rule: a comment needs a rating.
      const next = fieldErrors(parsed.error, LABELS);
      setErrors(
        Object.keys(next).length > 0
          ? next
          : { rating: humanize(parsed.error.issues[0]?.message ?? "", LABELS) },
      );
      return;
    }
    setErrors({});
    setPending(true);
    const result = await postJson(
      `/api/v1/jobs/${encodeURIComponent(jobId)}/complete`,
      parsed.data,
    );
    if (result.ok) {
      router.refresh();
      return;
    }
    setPending(false);
    setServerError(humanize(result.error, LABELS));
  }

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
            idPrefix="complete-rating"
          />
          <Field id="complete-comment" label="Comment" optional error={errors.comment}>
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
        <button type="submit" className="btn btn-primary" disabled={pending}>
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
  const [errors, setErrors] = useState<FieldErrors<FieldName>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const rating = parseNumber(form.get("rating"));
    const parsed = createReviewSchema.safeParse({
      agentId,
      jobId,
      rating,
      comment: text(form.get("comment")),
    });
    setServerError(null);
    if (!parsed.success) {
      const next = fieldErrors(parsed.error, LABELS);
      setErrors(
        rating === undefined ? { ...next, rating: "Choose a rating from 1 to 5 stars" } : next,
      );
      return;
    }
    setErrors({});
    setPending(true);
    const result = await postJson("/api/v1/reviews", parsed.data);
    if (result.ok) {
      router.refresh();
      return;
    }
    setPending(false);
    setServerError(humanize(result.error, LABELS));
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label="Review the agent">
      <FormError message={serverError} />
      <RatingInput name="rating" legend="Rating" error={errors.rating} idPrefix="review-rating" />
      <Field id="review-comment" label="Comment" optional error={errors.comment}>
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
        <button type="submit" className="btn btn-secondary" disabled={pending}>
          {pending ? <Spinner /> : null}
          {pending ? "Posting…" : "Post review"}
        </button>
      </div>
    </form>
  );
}
