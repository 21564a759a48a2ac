import type { JobStatus } from "@/lib/shared/enums";
import { categoryLabel, STATUS_LABELS } from "@/lib/shared/format";

const STATUS_STYLES: Record<JobStatus, string> = {
  open: "bg-emerald-50 text-emerald-800 ring-emerald-600/25 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-400/30",
  in_progress:
    "bg-sky-50 text-sky-800 ring-sky-600/25 dark:bg-sky-950 dark:text-sky-300 dark:ring-sky-400/30",
  delivered:
    "bg-violet-50 text-violet-800 ring-violet-600/25 dark:bg-violet-950 dark:text-violet-300 dark:ring-violet-400/30",
  completed:
    "bg-slate-100 text-slate-700 ring-slate-500/25 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-400/30",
  cancelled:
    "bg-rose-50 text-rose-800 ring-rose-600/25 dark:bg-rose-950 dark:text-rose-300 dark:ring-rose-400/30",
};

const DOT_STYLES: Record<JobStatus, string> = {
  open: "bg-emerald-500",
  in_progress: "bg-sky-500",
  delivered: "bg-violet-500",
  completed: "bg-slate-400",
  cancelled: "bg-rose-500",
};

export function StatusBadge({ status }: { status: JobStatus }) {
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset ${STATUS_STYLES[status]}`}
      data-testid="status-badge"
    >
      <span aria-hidden="true" className={`size-1.5 rounded-full ${DOT_STYLES[status]}`} />
      {STATUS_LABELS[status]}
    </span>
  );
}

export function CategoryBadge({ category }: { category: string }) {
  return (
    <span className="inline-flex items-center rounded-md bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-300">
      {categoryLabel(category)}
    </span>
  );
}

export function VerifiedBadge({ compact = false }: { compact?: boolean }) {
  return (
    <span
      className="inline-flex items-center gap-1 rounded-full bg-emerald-50 px-2 py-0.5 text-xs font-semibold text-emerald-800 ring-1 ring-emerald-600/25 ring-inset dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-400/30"
      title="Verified poster: has completed at least one job"
      data-testid="verified-badge"
    >
      <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-3.5">
        <path
          fillRule="evenodd"
          d="M10 1.5 12.2 3l2.6-.1.9 2.5 2.1 1.6-.8 2.5.8 2.5-2.1 1.6-.9 2.5-2.6-.1L10 18.5 7.8 17l-2.6.1-.9-2.5-2.1-1.6.8-2.5-.8-2.5 2.1-1.6.9-2.5 2.6.1L10 1.5Zm3.3 6.2a.75.75 0 0 0-1.1-1l-3 3.3-1.4-1.4a.75.75 0 1 0-1 1.1l2 1.9c.3.3.8.3 1.1 0l3.4-3.9Z"
          clipRule="evenodd"
        />
      </svg>
      {compact ? <span className="sr-only">Verified</span> : "Verified"}
    </span>
  );
}

export function UsdcAmount({
  amount,
  className = "",
  unitClassName = "text-xs font-medium text-slate-500 dark:text-slate-400",
}: {
  amount: string;
  className?: string;
  unitClassName?: string;
}) {
  return (
    <span className={`tabular-nums ${className}`}>
      {amount} <span className={unitClassName}>USDC</span>
    </span>
  );
}
