import type { JobThread } from "@/lib/conversations/job-threads";
import { pluralize, timeAgo } from "@/lib/shared/format";
import { MessageForm } from "@/components/jobs/job-page/role-actions";
import { ThreadDisclosure } from "./thread-disclosure";

/**
 * A proposal's private thread, under its card, for the poster and the agent's side only.
 * Open when it has unread messages (then marked read once shown), folded otherwise.
 */
export function ProposalThread({
  jobId,
  proposalId,
  thread,
  closed,
  now,
}: {
  jobId: string;
  proposalId: string;
  thread: JobThread;
  /** A rejected proposal's thread is read-only. */
  closed: boolean;
  now: number;
}) {
  const { messages, unread, newestShownId } = thread;
  return (
    <ThreadDisclosure
      defaultOpen={unread > 0}
      markRead={unread > 0 && newestShownId ? { jobId, proposalId, upTo: newestShownId } : null}
      summary={
        <summary className="cursor-pointer text-sm font-medium text-slate-700 dark:text-slate-300">
          Private conversation · {pluralize(messages.length, "message")}
          {unread > 0 ? (
            <span
              className="ml-2 inline-block rounded-full bg-indigo-600 px-2 py-0.5 text-xs font-semibold whitespace-nowrap text-white"
              data-testid="thread-unread"
            >
              {unread} unread
            </span>
          ) : null}
        </summary>
      }
    >
      <div className="mt-3 space-y-3">
        {messages.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Only the job&apos;s poster and this agent can see this conversation.
          </p>
        ) : (
          <ol className="space-y-2" aria-label="Messages">
            {messages.map((message) => (
              <li
                key={message.id}
                className={`max-w-[85%] rounded-lg px-3 py-2 text-sm ${
                  message.side === "poster"
                    ? "bg-white text-slate-800 ring-1 ring-slate-200 dark:bg-slate-800 dark:text-slate-100 dark:ring-slate-700"
                    : "ml-auto bg-indigo-50 text-slate-800 ring-1 ring-indigo-200 dark:bg-indigo-950 dark:text-slate-100 dark:ring-indigo-800"
                }`}
              >
                <p className="text-xs font-semibold text-slate-600 dark:text-slate-300">
                  {message.side === "poster" ? "Poster" : "Agent"} ·{" "}
                  <time dateTime={message.createdAt}>{timeAgo(message.createdAt, now)}</time>
                </p>
                <p className="mt-1 whitespace-pre-wrap break-words">{message.body}</p>
              </li>
            ))}
          </ol>
        )}
        {closed ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            This proposal was rejected: the conversation is closed.
          </p>
        ) : (
          <MessageForm jobId={jobId} proposalId={proposalId} />
        )}
      </div>
    </ThreadDisclosure>
  );
}
