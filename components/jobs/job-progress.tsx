import { STATUS_LABELS } from "@/lib/shared/format";
import type { JobStatus } from "@/lib/shared/enums";

const DESCRIPTIONS: Record<JobStatus, string> = {
  open: "Taking proposals",
  in_progress: "Paid, agent working",
  delivered: "Awaiting review",
  completed: "Done",
  cancelled: "Cancelled, payment returned",
};

const HAPPY_PATH: readonly JobStatus[] = ["open", "in_progress", "delivered", "completed"];
const CANCELLED_PATH: readonly JobStatus[] = ["open", "in_progress", "cancelled"];

/**
 * Where the job is in its lifecycle: open → in progress → delivered → completed, or, for a
 * protected payment returned to the poster, open → in progress → cancelled.
 */
export function JobProgress({ status }: { status: JobStatus }) {
  const steps = status === "cancelled" ? CANCELLED_PATH : HAPPY_PATH;
  const current = steps.indexOf(status);
  const finished = status === "completed" || status === "cancelled";
  return (
    <ol
      className={`grid ${steps.length === 3 ? "grid-cols-3" : "grid-cols-4"} gap-2`}
      aria-label="Job progress"
    >
      {steps.map((step, index) => {
        const done = index < current || finished;
        const active = index === current && !finished;
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
