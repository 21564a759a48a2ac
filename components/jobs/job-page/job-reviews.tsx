import { RatingStars } from "@/components/ui/rating";
import type { ReviewView } from "@/lib/shared/view-types";

export function JobReviews({ reviews }: { reviews: ReviewView[] }) {
  if (reviews.length === 0) return null;
  return (
    <section className="card p-5 sm:p-6" aria-labelledby="job-reviews-title">
      <h2 id="job-reviews-title" className="text-base font-semibold">
        Review
      </h2>
      <ul className="mt-3 space-y-3">
        {reviews.map((review) => (
          <li key={review.id}>
            <RatingStars rating={review.rating} />
            {review.comment ? (
              <p className="mt-1 text-sm whitespace-pre-wrap text-slate-700 dark:text-slate-300">
                {review.comment}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
