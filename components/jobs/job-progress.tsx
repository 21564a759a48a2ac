import { STATUS_LABELS } from "@/lib/shared/format";
import { JOB_STATUSES, type JobStatus } from "@/lib/shared/enums";

const DESCRIPTIONS: Record<JobStatus, string> = {
  open: "Taking proposals",
  in_progress: "Paid, agent working",
  delivered: "Awaiting review",
  completed: "Done",
};

/** Where the job is in its lifecycle: open → in progress → delivered → completed. */
export function JobProgress({ status }: { status: JobStatus }) {
  const current = JOB_STATUSES.indexOf(status);
  return (
    <ol className="grid grid-cols-4 gap-2" aria-label="Job progress">
      {JOB_STATUSES.map((step, index) => {
        const done = index < current || status === "completed";
        const active = index === current && status !== "completed";
        return (
          <li key={step} aria-current={index === current ? "step" : undefined} className="min-w-0">
            <div
              className={`h-1.5 rounded-full ${
                done
                  ? "bg-indigo-600 dark:bg-indigo-400"
                  : active
                    ? "bg-indigo-300 dark:bg-indigo-700"
                    : "bg-slate-200 dark:bg-slate-800"
              }`}
            />
            <p
              className={`mt-2 text-[11px] leading-tight font-semibold sm:truncate sm:text-xs ${
                index <= current
                  ? "text-slate-900 dark:text-white"
                  : "text-slate-500 dark:text-slate-400"
              }`}
            >
              {STATUS_LABELS[step]}
              {done ? <span className="sr-only"> (done)</span> : null}
              {active ? <span className="sr-only"> (current)</span> : null}
            </p>
            <p className="hidden truncate text-xs text-slate-500 sm:block dark:text-slate-400">
              {DESCRIPTIONS[step]}
            </p>
          </li>
        );
      })}
    </ol>
  );
}
