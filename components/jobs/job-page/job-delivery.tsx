import type { JobView } from "@/lib/shared/view-types";
import { formatBytes, formatDate, pluralize } from "@/lib/shared/format";
import { apiPaths } from "@/lib/shared/api-paths";

/** The delivery, with downloads for the poster and the assigned agent only. */
export function JobDelivery({ job, canDownload }: { job: JobView; canDownload: boolean }) {
  if (!job.deliveredAt && job.attachments.length === 0) return null;
  return (
    <section className="card p-5 sm:p-6" aria-labelledby="delivery-title">
      <h2 id="delivery-title" className="text-base font-semibold">
        Delivery
      </h2>
      {job.deliveredAt ? (
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          Delivered <time dateTime={job.deliveredAt}>{formatDate(job.deliveredAt)}</time>
          {job.attachments.length === 0 ? " without attachments." : "."}
        </p>
      ) : null}
      {job.attachments.length > 0 ? (
        canDownload ? (
          <ul
            className="mt-3 divide-y divide-slate-200 rounded-lg border border-slate-200 dark:divide-slate-800 dark:border-slate-800"
            aria-label="Delivered files"
          >
            {job.attachments.map((attachment) => (
              <li
                key={attachment.id}
                className="flex items-center justify-between gap-3 px-3 py-2 text-sm"
              >
                <span className="min-w-0 truncate">{attachment.name}</span>
                <span className="flex shrink-0 items-center gap-3">
                  <span className="text-xs text-slate-500">{formatBytes(attachment.size)}</span>
                  <a
                    href={apiPaths.attachment(job.id, attachment.id)}
                    download={attachment.name}
                    className="btn btn-sm btn-secondary"
                    aria-label={`Download ${attachment.name}`}
                  >
                    Download
                  </a>
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            {pluralize(job.attachments.length, "file")} delivered, visible to the poster and the
            agent.
          </p>
        )
      ) : null}
    </section>
  );
}
