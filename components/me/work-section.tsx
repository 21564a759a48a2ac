import Link from "next/link";
import type { ReactNode } from "react";
import { Pagination } from "@/components/ui/pagination";

/**
 * One list of /me ("Deliveries to confirm", "Pending bids"). On the overview it shows the
 * first few and links to the whole list; on its own (`/me?section=...`) it pages with the
 * list's keyset cursor.
 */
export function WorkSection({
  id,
  title,
  description,
  empty,
  nextCursor,
  cursor,
  alone,
  count,
  children,
}: {
  id: string;
  title: string;
  description?: string;
  empty: string;
  nextCursor: string | null;
  cursor: string | undefined;
  /** Shown on its own, paged, rather than as a preview on the overview. */
  alone: boolean;
  count: number;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={`section-${id}`} className="space-y-3" data-testid={`section-${id}`}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 id={`section-${id}`} className="text-base font-semibold text-slate-900 dark:text-white">
          {title}
        </h3>
        {!alone && nextCursor ? (
          <Link
            href={`/me?section=${id}`}
            className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
          >
            See all <span className="sr-only">{title.toLowerCase()}</span>
          </Link>
        ) : null}
      </div>
      {description ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">{description}</p>
      ) : null}
      {count === 0 ? (
        <p className="rounded-lg border border-dashed border-slate-300 px-4 py-3 text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
          {empty}
        </p>
      ) : (
        <ul className="space-y-3">{children}</ul>
      )}
      {alone ? (
        <Pagination
          basePath="/me"
          params={{ section: id }}
          cursor={cursor}
          nextCursor={nextCursor}
          label={`${title} pages`}
        />
      ) : null}
    </section>
  );
}
