import Link from "next/link";
import { FinishAcceptance } from "@/components/jobs/finish-acceptance";
import { ProposalCard } from "@/components/jobs/proposal-card";
import { posterProposalActions } from "@/components/jobs/poster-proposal-actions";
import type { PosterDecision } from "@/lib/views/my-work-page";
import { pluralize } from "@/lib/shared/format";
import type { JobView, PublicPaymentConfig } from "@/lib/shared/view-types";

/**
 * An open job's first pending bids with the buttons the job page offers (Reject, Pay &
 * accept), or "Finish acceptance" when the payment went through but the accept did not.
 */
export function PosterDecisionPanel({
  job,
  decision,
  pendingProposals,
  viewer,
  payment,
  now,
}: {
  job: JobView;
  decision: PosterDecision | undefined;
  pendingProposals: number;
  viewer: string;
  payment: PublicPaymentConfig | null;
  now: number;
}) {
  if (!decision) return null;
  const { panel, proposal: may } = decision.actions;
  if (panel?.kind === "finish_acceptance") {
    return (
      <div className="space-y-2">
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Your payment went through on chain but the proposal is not accepted yet.
        </p>
        <FinishAcceptance jobId={job.id} proposalId={panel.proposalId} txHash={panel.txHash} />
      </div>
    );
  }
  const hidden = pendingProposals - decision.proposals.length;
  return (
    <div className="space-y-3">
      <ul className="space-y-3">
        {decision.proposals.map((proposal) => {
          const agent = decision.agents.get(proposal.agentId);
          return (
            <li key={proposal.id}>
              <ProposalCard
                proposal={proposal}
                agent={agent}
                now={now}
                actions={posterProposalActions({
                  jobId: job.id,
                  proposal,
                  agent,
                  viewer,
                  payment,
                  may,
                })}
              />
            </li>
          );
        })}
      </ul>
      {!may.payAndAccept ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          A payment for this job is settling; see the job page.
        </p>
      ) : null}
      {hidden > 0 ? (
        <Link
          href={`/jobs/${job.id}`}
          className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
        >
          {pluralize(hidden, "more proposal")} on the job page
        </Link>
      ) : null}
    </div>
  );
}
