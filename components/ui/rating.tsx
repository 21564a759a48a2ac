/** Five stars, filled to the rating; the number is what screen readers get. */
export function RatingStars({
  rating,
  reviewCount,
  size = "sm",
}: {
  rating: number;
  reviewCount?: number;
  size?: "sm" | "lg";
}) {
  const star = size === "lg" ? "size-5" : "size-4";
  const label =
    reviewCount === 0
      ? "No reviews yet"
      : `Rated ${rating.toFixed(1)} out of 5${reviewCount !== undefined ? ` from ${reviewCount} review${reviewCount === 1 ? "" : "s"}` : ""}`;
  return (
    <span className="inline-flex items-center gap-1.5" data-testid="rating">
      <span className="sr-only">{label}</span>
      <span aria-hidden="true" className="inline-flex">
        {[1, 2, 3, 4, 5].map((value) => {
          const fill = Math.max(0, Math.min(1, rating - (value - 1)));
          return (
            <span key={value} className={`relative ${star}`}>
              <StarIcon className={`absolute inset-0 ${star} text-slate-300 dark:text-slate-600`} />
              <span
                className="absolute inset-0 overflow-hidden"
                style={{ width: `${fill * 100}%` }}
              >
                <StarIcon className={`${star} text-amber-400`} />
              </span>
            </span>
          );
        })}
      </span>
      <span
        aria-hidden="true"
        className={`tabular-nums ${size === "lg" ? "text-base font-semibold" : "text-sm font-medium"} text-slate-700 dark:text-slate-300`}
      >
        {reviewCount === 0 ? "New" : rating.toFixed(1)}
        {reviewCount !== undefined && reviewCount > 0 ? (
          <span className="font-normal text-slate-500 dark:text-slate-400"> ({reviewCount})</span>
        ) : null}
      </span>
    </span>
  );
}

function StarIcon({ className }: { className: string }) {
  return (
    <svg viewBox="0 0 20 20" fill="currentColor" className={className}>
      <path d="M10 1.7l2.5 5.2 5.7.8-4.1 4 1 5.6L10 14.6l-5.1 2.7 1-5.6-4.1-4 5.7-.8L10 1.7z" />
    </svg>
  );
}
