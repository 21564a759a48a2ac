import Link from "next/link";
import { CategoryBadge, StatusBadge, UsdcAmount, VerifiedBadge } from "@/components/ui/badges";
import { pluralize, timeAgo } from "@/lib/shared/format";
import { formatUsdc } from "@/lib/shared/money";
import type { JobView } from "@/lib/shared/view-types";

export function JobCard({ job, proposals, now }: { job: JobView; proposals: number; now: number }) {
  return (
    <article
      className="card group relative flex flex-col gap-3 p-4 transition-shadow hover:shadow-md sm:p-5"
      data-testid="job-card"
    >
      <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0 flex-1">
          <h2 className="text-base font-semibold text-slate-900 sm:text-lg dark:text-white">
            <Link
              href={`/jobs/${job.id}`}
              className="rounded-sm after:absolute after:inset-0 after:rounded-xl hover:text-indigo-700 dark:hover:text-indigo-300"
            >
              {job.title}
            </Link>
          </h2>
          <div className="mt-1.5 flex flex-wrap items-center gap-2">
            <StatusBadge status={job.status} />
            <CategoryBadge category={job.category} />
          </div>
        </div>
        <div className="text-right">
          <UsdcAmount
            amount={formatUsdc(job.budgetUsdc)}
            className="text-lg font-bold text-slate-900 dark:text-white"
          />
          <p className="text-xs text-slate-500 dark:text-slate-400">budget</p>
        </div>
      </div>
      <p className="line-clamp-2 text-sm text-slate-600 dark:text-slate-400">{job.description}</p>
      <dl className="flex flex-wrap items-center gap-x-5 gap-y-1 text-sm text-slate-600 dark:text-slate-400">
        <div className="flex items-center gap-1.5">
          <dt className="sr-only">Timeline</dt>
          <ClockIcon />
          <dd>{pluralize(job.timelineDays, "day")}</dd>
        </div>
        <div className="flex items-center gap-1.5">
          <dt className="sr-only">Proposals</dt>
          <ChatIcon />
          <dd data-testid="proposal-count">{pluralize(proposals, "proposal")}</dd>
        </div>
        <div className="relative z-10 flex items-center gap-1.5">
          <dt className="sr-only">Posted by</dt>
          <dd className="flex items-center gap-1.5">
            <span className="font-medium text-slate-800 dark:text-slate-200">{job.handle}</span>
            {job.posterVerified ? <VerifiedBadge /> : null}
          </dd>
        </div>
        <div className="ml-auto text-xs">
          <dt className="sr-only">Posted</dt>
          <dd>
            <time dateTime={job.createdAt}>{timeAgo(job.createdAt, now)}</time>
          </dd>
        </div>
      </dl>
    </article>
  );
}

function ClockIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 20 20"
      fill="currentColor"
      className="size-4 text-slate-400"
    >
      <path
        fillRule="evenodd"
        d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm.75-13a.75.75 0 0 0-1.5 0v5c0 .2.08.39.22.53l3 3a.75.75 0 1 0 1.06-1.06l-2.78-2.78V5Z"
        clipRule="evenodd"
      />
    </svg>
  );
}

function ChatIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 20 20"
      fill="currentColor"
      className="size-4 text-slate-400"
    >
      <path
        fillRule="evenodd"
        d="M10 2c-2.24 0-4.43.18-6.57.53C1.93 2.78 1 4.08 1 5.5v5c0 1.42.93 2.72 2.43 2.97.88.15 1.77.26 2.67.33v2.95a.75.75 0 0 0 1.28.53l3.06-3.06c1.91-.04 3.77-.22 5.58-.52C17.07 13.45 19 12.17 19 10.75V5.5c0-1.42-.93-2.72-2.43-2.97A40.2 40.2 0 0 0 10 2Z"
        clipRule="evenodd"
      />
    </svg>
  );
}
