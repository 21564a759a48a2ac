import Link from "next/link";
import type { NotificationType } from "@/lib/shared/schemas/notifications";
import { timeAgo } from "@/lib/shared/format";
import type { NotificationView } from "@/lib/shared/view-types";
import { MarkReadButton } from "./mark-read-button";

/** What each notification says, before the job's title. */
const SAYS: Record<NotificationType, string> = {
  "proposal.submitted": "New proposal on your job",
  "proposal.rejected": "Your proposal was declined",
  "job.accepted": "Your proposal was accepted and paid",
  "job.delivered": "The agent delivered",
  "job.completed": "The poster completed the job",
  "review.created": "You received a review",
  "message.created": "New message",
  "payment.released": "The held payment was released to you",
  "payment.refunded": "Your held payment came back to you",
  "job.cancelled": "The poster cancelled the job and took the held payment back",
  "dispute.opened": "A dispute was opened; the payment stays held",
  "dispute.resolved": "The dispute was resolved",
};

export function NotificationList({
  notifications,
  now,
}: {
  notifications: NotificationView[];
  now: number;
}) {
  return (
    <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="notifications">
      {notifications.map((notification) => (
        <li
          key={notification.id}
          className="flex flex-wrap items-center gap-3 py-3"
          data-testid="notification"
          data-read={notification.read}
        >
          <span
            aria-hidden="true"
            className={`size-2 shrink-0 rounded-full ${notification.read ? "bg-transparent" : "bg-indigo-600"}`}
          />
          <div className="min-w-0 flex-1">
            <p className={`text-sm ${notification.read ? "" : "font-semibold"}`}>
              {SAYS[notification.type]}:{" "}
              <Link href={`/jobs/${notification.jobId}`} className="link">
                {notification.jobTitle}
              </Link>
              {notification.read ? null : <span className="sr-only"> (unread)</span>}
            </p>
            <time
              dateTime={notification.createdAt}
              className="text-xs text-slate-500 dark:text-slate-400"
            >
              {timeAgo(notification.createdAt, now)}
            </time>
          </div>
          {notification.read ? null : (
            <MarkReadButton
              target={{ ids: [notification.id] }}
              label="Mark read"
              accessibleLabel={`Mark read: ${SAYS[notification.type]}, ${notification.jobTitle}`}
            />
          )}
        </li>
      ))}
    </ul>
  );
}
