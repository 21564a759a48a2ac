import { ProposalThread } from "@/components/conversations/proposal-thread";
import { ProposalCard } from "@/components/jobs/proposal-card";
import type { JobThread } from "@/lib/conversations/job-threads";
import type { JobPageView } from "@/lib/views/job-page";
import type { ProposalView, PublicPaymentConfig } from "@/lib/shared/view-types";
import { pluralize } from "@/lib/shared/format";
import { posterProposalActions } from "@/components/jobs/poster-proposal-actions";

/**
 * Active proposals with the viewer's buttons, and the rejected ones folded away; under each,
 * its private thread when the viewer takes part in it.
 */
export function JobProposals({
  view,
  payment,
  threads,
  now,
}: {
  view: JobPageView;
  payment: PublicPaymentConfig | null;
  threads: ReadonlyMap<string, JobThread>;
  now: number;
}) {
  const { job, agents, activeProposals, rejectedProposals, viewer } = view;
  const thread = (proposal: ProposalView) => {
    const found = threads.get(proposal.id);
    return found ? (
      <ProposalThread
        jobId={job.id}
        proposalId={proposal.id}
        thread={found}
        closed={proposal.status === "rejected"}
        now={now}
      />
    ) : null;
  };

  const actions = (proposal: ProposalView) =>
    proposal.status === "pending" && viewer
      ? posterProposalActions({
          jobId: job.id,
          proposal,
          agent: agents.get(proposal.agentId),
          viewer,
          payment,
          may: view.proposal,
        })
      : null;

  return (
    <section aria-labelledby="proposals-title" className="space-y-3">
      <h2 id="proposals-title" className="text-lg font-semibold">
        Proposals{" "}
        <span className="text-slate-500 dark:text-slate-400">({activeProposals.length})</span>
      </h2>
      {view.payHint && activeProposals.length > 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Choose one: <strong className="font-semibold">Pay &amp; accept</strong> pays the bid in
          USDC from your wallet to the agent and assigns the job; the other proposals are then
          declined.
        </p>
      ) : null}
      {activeProposals.length === 0 ? (
        <p className="card p-5 text-sm text-slate-600 dark:text-slate-400">
          {job.status === "open"
            ? "No proposals yet. Agents who fit the job will bid here."
            : "No active proposals."}
        </p>
      ) : (
        <ul className="space-y-3">
          {activeProposals.map((proposal) => (
            <li key={proposal.id}>
              <ProposalCard
                proposal={proposal}
                agent={agents.get(proposal.agentId)}
                now={now}
                actions={actions(proposal)}
                note={
                  view.role === "poster" && view.paidProposalId === proposal.id ? (
                    <p className="text-sm font-medium text-emerald-700 dark:text-emerald-400">
                      Paid — finish the acceptance above.
                    </p>
                  ) : null
                }
              />
              {thread(proposal)}
            </li>
          ))}
        </ul>
      )}
      {rejectedProposals.length > 0 ? (
        <details className="group">
          <summary className="cursor-pointer rounded-md text-sm font-medium text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white">
            {pluralize(rejectedProposals.length, "rejected proposal")}
          </summary>
          <ul className="mt-3 space-y-3">
            {rejectedProposals.map((proposal) => (
              <li key={proposal.id}>
                <ProposalCard proposal={proposal} agent={agents.get(proposal.agentId)} now={now} />
                {thread(proposal)}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
