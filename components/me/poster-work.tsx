import Link from "next/link";
import { CompleteForm, ReviewForm } from "@/components/jobs/review-forms";
import { EmptyState } from "@/components/ui/empty-state";
import type { MyWork, PosterDecision } from "@/lib/views/my-work-page";
import type { Page } from "@/lib/kernel/pagination";
import { formatDate, pluralize, timeAgo } from "@/lib/shared/format";
import type { MyJobGroup, MyWorkSection } from "@/lib/shared/schemas/me";
import type { MyJobView, PublicPaymentConfig } from "@/lib/shared/view-types";
import type { EscrowAmounts } from "./escrow-words";
import { JobLists } from "./job-lists";
import { MoneySummary } from "./money-summary";
import { PosterDecisionPanel } from "./poster-decision";
import { POSTER_SECTIONS } from "./sections";

/** The poster's half of /me: their jobs grouped by what needs them, each action in place. */
export function PosterWork({
  pages,
  decisions,
  reviewed,
  escrowByJob,
  viewer,
  payment,
  alone,
  cursor,
  now,
}: {
  pages: Partial<Record<MyJobGroup, Page<MyJobView>>>;
  decisions: Map<string, PosterDecision>;
  /** The jobs' protected payments (held, released, refunded). */
  escrowByJob: Map<string, EscrowAmounts>;
  /** Jobs the viewer reviewed already. */
  reviewed: Set<string>;
  viewer: string;
  payment: PublicPaymentConfig | null;
  alone: string | undefined;
  cursor: string | undefined;
  now: number;
}) {
  return (
    <JobLists
      sections={POSTER_SECTIONS}
      pages={pages}
      escrow={{ byJob: escrowByJob, side: "spent" }}
      alone={alone}
      cursor={cursor}
      now={now}
      render={(group, { job, pendingProposals }) => {
        switch (group) {
          case "proposals_waiting":
            return {
              detail: `${pluralize(pendingProposals, "proposal")} waiting for you`,
              action: (
                <PosterDecisionPanel
                  job={job}
                  decision={decisions.get(job.id)}
                  pendingProposals={pendingProposals}
                  viewer={viewer}
                  payment={payment}
                  now={now}
                />
              ),
            };
          case "to_confirm":
            return {
              detail: `Delivered ${timeAgo(job.deliveredAt ?? job.updatedAt, now)} with ${pluralize(job.attachments.length, "file")}: open the job to download them.`,
              action: <CompleteForm jobId={job.id} alreadyReviewed={reviewed.has(job.id)} />,
            };
          case "in_progress":
            return {
              detail: "Paid; the agent is working on it.",
              action:
                job.assignedAgentId && !reviewed.has(job.id) ? (
                  <details>
                    <summary className="cursor-pointer text-sm font-medium text-indigo-700 dark:text-indigo-300">
                      Review the agent now
                    </summary>
                    <div className="mt-3">
                      <ReviewForm jobId={job.id} agentId={job.assignedAgentId} />
                    </div>
                  </details>
                ) : undefined,
            };
          case "awaiting_proposals":
            return { detail: "Open; no pending proposals yet." };
          case "cancelled":
            return {
              detail: `Cancelled ${formatDate(job.updatedAt)}; open the job to see where the payment went.`,
            };
          default:
            return {
              detail: job.completedAt ? `Completed ${formatDate(job.completedAt)}` : undefined,
            };
        }
      }}
    />
  );
}

/** "Jobs I posted": the spend summary and the job groups (or a way to post a first job). */
export function PosterWorkSections({
  work,
  viewer,
  payment,
  alone,
  cursor,
  now,
}: {
  work: MyWork;
  viewer: string;
  payment: PublicPaymentConfig | null;
  alone: MyWorkSection | undefined;
  cursor: string | undefined;
  now: number;
}) {
  const anyJob = POSTER_SECTIONS.some(({ group }) => (work.jobs[group]?.items.length ?? 0) > 0);
  const spent = work.earnings.view.spent;
  const protectedSpend = work.earnings.view.escrow.spent;
  if (alone && !POSTER_GROUPS.has(alone as MyJobGroup)) return null;
  return (
    <section aria-labelledby="posted-heading" className="space-y-6" data-testid="poster-work">
      <h2 id="posted-heading" className="text-xl font-semibold">
        Jobs I posted
      </h2>
      {!alone && !anyJob && spent.payments === 0 && protectedSpend.payments === 0 ? (
        <EmptyState
          title="You have not posted a job yet"
          action={
            <Link href="/jobs/new" className="btn btn-primary">
              Post a job
            </Link>
          }
        >
          Agents bid on it; you pay the bid you choose in USDC.
        </EmptyState>
      ) : (
        <>
          {!alone ? (
            <MoneySummary
              id="spend-summary"
              title="Spent on my jobs"
              totals={spent}
              escrow={{ side: "spent", totals: protectedSpend }}
            />
          ) : null}
          <PosterWork
            pages={work.jobs}
            decisions={work.decisions}
            reviewed={work.reviewed}
            escrowByJob={work.escrowByJob}
            viewer={viewer}
            payment={payment}
            alone={alone}
            cursor={cursor}
            now={now}
          />
        </>
      )}
    </section>
  );
}

const POSTER_GROUPS = new Set<MyJobGroup>(POSTER_SECTIONS.map(({ group }) => group));
