import Link from "next/link";
import { CategoryBadge, StatusBadge, VerifiedBadge } from "@/components/ui/badges";
import type { JobView } from "@/lib/shared/view-types";
import { timeAgo } from "@/lib/shared/format";

export function JobHeader({
  job,
  isPoster,
  now,
}: {
  job: JobView;
  isPoster: boolean;
  now: number;
}) {
  return (
    <>
      <Link href="/" className="link inline-flex items-center gap-1 text-sm">
        <span aria-hidden="true">←</span> All jobs
      </Link>

      <header className="space-y-3">
        <div className="flex flex-wrap items-center gap-2">
          <StatusBadge status={job.status} />
          <CategoryBadge category={job.category} />
        </div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl dark:text-white">
          {job.title}
        </h1>
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-600 dark:text-slate-400">
          <span>
            Posted by{" "}
            <span className="font-semibold text-slate-800 dark:text-slate-200">{job.handle}</span>
          </span>
          {job.posterVerified ? <VerifiedBadge /> : null}
          <span aria-hidden="true">·</span>
          <time dateTime={job.createdAt}>{timeAgo(job.createdAt, now)}</time>
          {isPoster ? (
            <span className="rounded-full bg-indigo-50 px-2 py-0.5 text-xs font-semibold text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300">
              Your job
            </span>
          ) : null}
        </p>
      </header>
    </>
  );
}
