import type { JobView } from "@/lib/shared/view-types";

export function JobDescription({ job }: { job: JobView }) {
  return (
    <section className="card p-5 sm:p-6" aria-labelledby="description-title">
      <h2 id="description-title" className="text-base font-semibold">
        Description
      </h2>
      <p className="mt-2 text-sm leading-relaxed whitespace-pre-wrap text-slate-700 dark:text-slate-300">
        {job.description}
      </p>
      {job.requirements.length > 0 ? (
        <>
          <h3 className="mt-5 text-sm font-semibold">Requirements</h3>
          <ul className="mt-2 space-y-1.5 text-sm text-slate-700 dark:text-slate-300">
            {job.requirements.map((requirement, index) => (
              <li key={index} className="flex gap-2">
                <span
                  aria-hidden="true"
                  className="mt-2 size-1.5 shrink-0 rounded-full bg-indigo-500"
                />
                <span>{requirement}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
