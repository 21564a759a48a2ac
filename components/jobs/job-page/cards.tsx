import type { ReactNode } from "react";

/** A label and its value in the job summary. */
export function SummaryItem({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
        {label}
      </dt>
      <dd className="mt-1 text-sm text-slate-900 dark:text-slate-100">{children}</dd>
    </div>
  );
}

/** The highlighted card of what the viewer can do next. */
export function ActionCard({
  title,
  description,
  children,
}: {
  title: string;
  description?: string;
  children?: ReactNode;
}) {
  return (
    <section
      className="card border-indigo-200 p-5 ring-1 ring-indigo-500/10 sm:p-6 dark:border-indigo-900"
      aria-labelledby="action-title"
      data-testid="action-panel"
    >
      <h2 id="action-title" className="text-base font-semibold">
        {title}
      </h2>
      {description ? (
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{description}</p>
      ) : null}
      {children ? <div className="mt-4">{children}</div> : null}
    </section>
  );
}
