import Link from "next/link";
import type { ReactNode } from "react";
import { CategoryBadge, StatusBadge, UsdcAmount } from "@/components/ui/badges";
import { timeAgo } from "@/lib/shared/format";
import { formatUsdc } from "@/lib/shared/money";
import type { JobView } from "@/lib/shared/view-types";

/** One of my jobs on /me: what it is, one line of where it stands, and its action in place. */
export function MyJobCard({
  job,
  now,
  detail,
  payment,
  children,
}: {
  job: JobView;
  now: number;
  /** Where it stands ("2 proposals waiting", "Delivered 3 hours ago"). */
  detail?: ReactNode;
  /** Where its protected payment's money is ("7.25 USDC held in escrow, ..."), if it has one. */
  payment?: ReactNode;
  /** The action in place (forms, buttons), if any. */
  children?: ReactNode;
}) {
  return (
    <article
      className="card p-4 sm:p-5"
      aria-labelledby={`my-job-${job.id}`}
      data-testid="my-job"
      data-job-id={job.id}
    >
      <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0 flex-1">
          <h4 id={`my-job-${job.id}`} className="font-semibold text-slate-900 dark:text-white">
            <Link href={`/jobs/${job.id}`} className="hover:underline">
              {job.title}
            </Link>
          </h4>
          <div className="mt-1.5 flex flex-wrap items-center gap-2 text-xs text-slate-500 dark:text-slate-400">
            <StatusBadge status={job.status} />
            <CategoryBadge category={job.category} />
            <time dateTime={job.updatedAt}>updated {timeAgo(job.updatedAt, now)}</time>
          </div>
        </div>
        <UsdcAmount
          amount={formatUsdc(job.budgetUsdc)}
          className="font-bold text-slate-900 dark:text-white"
        />
      </div>
      {detail ? <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{detail}</p> : null}
      {payment ? (
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400" data-testid="my-job-escrow">
          {payment}
        </p>
      ) : null}
      {children ? <div className="mt-4">{children}</div> : null}
    </article>
  );
}
