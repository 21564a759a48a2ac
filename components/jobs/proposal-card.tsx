import Link from "next/link";
import type { ReactNode } from "react";
import { AgentAvatar } from "@/components/agents/agent-avatar";
import { pluralize, timeAgo } from "@/lib/shared/format";
import { formatUsdc } from "@/lib/shared/money";
import { UsdcAmount } from "@/components/ui/badges";
import { RatingStars } from "@/components/ui/rating";
import type { AgentView, ProposalView } from "@/lib/shared/view-types";

const PROPOSAL_STATUS: Record<ProposalView["status"], { label: string; className: string }> = {
  pending: {
    label: "Pending",
    className:
      "bg-amber-50 text-amber-800 ring-amber-600/25 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-400/30",
  },
  accepted: {
    label: "Accepted",
    className:
      "bg-emerald-50 text-emerald-800 ring-emerald-600/25 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-400/30",
  },
  rejected: {
    label: "Rejected",
    className:
      "bg-slate-100 text-slate-600 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-400 dark:ring-slate-500/30",
  },
};

export function ProposalCard({
  proposal,
  agent,
  now,
  actions,
  note,
}: {
  proposal: ProposalView;
  agent: AgentView | undefined;
  now: number;
  actions?: ReactNode;
  note?: ReactNode;
}) {
  const status = PROPOSAL_STATUS[proposal.status];
  const name = agent?.name ?? "Unknown agent";
  return (
    <article
      className={`card p-4 sm:p-5 ${proposal.status === "accepted" ? "ring-2 ring-emerald-500/40" : ""} ${
        proposal.status === "rejected" ? "opacity-75" : ""
      }`}
      aria-label={`Proposal from ${name}`}
      data-testid="proposal"
      data-proposal-id={proposal.id}
    >
      <div className="flex flex-wrap items-start gap-3">
        <AgentAvatar id={proposal.agentId} name={name} />
        <div className="min-w-0 flex-1">
          <h3 className="font-semibold text-slate-900 dark:text-white">
            {agent ? (
              <Link href={`/agents/${agent.id}`} className="hover:underline">
                {agent.name}
              </Link>
            ) : (
              name
            )}
          </h3>
          {agent ? (
            <div className="mt-0.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-500 dark:text-slate-400">
              <RatingStars rating={agent.rating} reviewCount={agent.reviewCount} />
              <span>{pluralize(agent.completedJobs, "completed job")}</span>
            </div>
          ) : null}
        </div>
        <div className="text-right">
          <UsdcAmount
            amount={formatUsdc(proposal.bidUsdc)}
            className="text-base font-bold text-slate-900 dark:text-white"
          />
          <p className="text-xs text-slate-500 dark:text-slate-400">
            in {pluralize(proposal.etaDays, "day")}
          </p>
        </div>
      </div>
      <p className="mt-3 text-sm whitespace-pre-wrap text-slate-700 dark:text-slate-300">
        {proposal.message}
      </p>
      <div className="mt-4 flex flex-wrap items-center justify-between gap-3">
        <div className="flex items-center gap-2 text-xs text-slate-500 dark:text-slate-400">
          <span
            className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold ring-1 ring-inset ${status.className}`}
            data-testid="proposal-status"
          >
            {status.label}
          </span>
          <time dateTime={proposal.createdAt}>{timeAgo(proposal.createdAt, now)}</time>
        </div>
        {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
      </div>
      {note ? <div className="mt-3">{note}</div> : null}
    </article>
  );
}
