import Link from "next/link";
import { DeliverForm } from "@/components/jobs/deliver-form";
import { ProposalCard } from "@/components/jobs/proposal-card";
import { EmptyState } from "@/components/ui/empty-state";
import type { MyWork } from "@/lib/views/my-work-page";
import type { Page } from "@/lib/kernel/pagination";
import { formatDate, pluralize, STATUS_LABELS } from "@/lib/shared/format";
import type { MyJobGroup, MyWorkSection } from "@/lib/shared/schemas/me";
import type { AgentView, MyJobView, MyProposalView } from "@/lib/shared/view-types";
import type { EscrowAmounts } from "./escrow-words";
import { JobLists } from "./job-lists";
import { MoneySummary } from "./money-summary";
import { AGENT_SECTIONS, BID_SECTIONS } from "./sections";
import { WorkSection } from "./work-section";

interface Paging {
  alone: string | undefined;
  cursor: string | undefined;
  now: number;
}

/** The operator's assigned jobs: what to deliver (the deliver form in place), then the rest. */
export function AssignedWork({
  pages,
  agents,
  escrowByJob,
  ...paging
}: Paging & {
  pages: Partial<Record<MyJobGroup, Page<MyJobView>>>;
  agents: Map<string, AgentView>;
  /** The jobs' protected payments (held, released, refunded). */
  escrowByJob: Map<string, EscrowAmounts>;
}) {
  const agentName = (job: MyJobView["job"]) =>
    (job.assignedAgentId ? agents.get(job.assignedAgentId)?.name : undefined) ?? "your agent";
  return (
    <JobLists
      sections={AGENT_SECTIONS}
      pages={pages}
      escrow={{ byJob: escrowByJob, side: "earned" }}
      {...paging}
      render={(group, { job }) => {
        switch (group) {
          case "to_deliver":
            return {
              detail: `Assigned to ${agentName(job)} and paid. ${job.requirements.length > 0 ? `Deliver: ${job.requirements.join("; ")}.` : job.description}`,
              action: <DeliverForm jobId={job.id} />,
            };
          case "awaiting_confirmation":
            return { detail: `${agentName(job)} delivered; the poster confirms next.` };
          case "assigned_cancelled":
            return {
              detail: `${agentName(job)} · cancelled ${formatDate(job.updatedAt)}; open the job to see where the payment went.`,
            };
          default:
            return {
              detail: `${agentName(job)} · completed ${job.completedAt ? formatDate(job.completedAt) : ""}`,
            };
        }
      }}
    />
  );
}

/** The bids of the operator's agents, by status, each with its job. */
export function BidLists({
  pages,
  agents,
  alone,
  cursor,
  now,
}: Paging & {
  pages: Partial<Record<string, Page<MyProposalView>>>;
  agents: Map<string, AgentView>;
}) {
  return BID_SECTIONS.map((section) => {
    const page = pages[section.id];
    if (!page) return null;
    return (
      <WorkSection
        key={section.id}
        id={section.id}
        title={section.title}
        empty={section.empty}
        count={page.items.length}
        nextCursor={page.nextCursor}
        cursor={alone === section.id ? cursor : undefined}
        alone={alone === section.id}
      >
        {page.items.map(({ proposal, job }) => (
          <li key={proposal.id}>
            <ProposalCard
              proposal={proposal}
              agent={agents.get(proposal.agentId)}
              now={now}
              note={
                <p className="text-sm text-slate-600 dark:text-slate-400">
                  On{" "}
                  <Link href={`/jobs/${job.id}`} className="font-medium hover:underline">
                    {job.title}
                  </Link>{" "}
                  ({STATUS_LABELS[job.status].toLowerCase()})
                </p>
              }
            />
          </li>
        ))}
      </WorkSection>
    );
  });
}

/** The agents the viewer operates, with links to their profiles and edit pages. */
export function MyAgents({ agents }: { agents: AgentView[] }) {
  return (
    <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2" data-testid="my-agents">
      {agents.map((agent) => (
        <li key={agent.id} className="card flex items-center justify-between gap-3 p-4">
          <div className="min-w-0">
            <Link href={`/agents/${agent.id}`} className="font-semibold hover:underline">
              {agent.name}
            </Link>
            <p className="text-xs text-slate-500 dark:text-slate-400">
              {pluralize(agent.completedJobs, "completed job")} ·{" "}
              {agent.reviewCount > 0 ? `rated ${agent.rating} / 5` : "no reviews yet"}
            </p>
          </div>
          <Link href={`/agents/${agent.id}/edit`} className="btn btn-secondary btn-sm">
            Edit <span className="sr-only">{agent.name}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

const AGENT_GROUPS = new Set<MyWorkSection>(AGENT_SECTIONS.map(({ group }) => group));
const BID_IDS = new Set<MyWorkSection>(BID_SECTIONS.map(({ id }) => id));

/** "My agents": the agents, their earnings, the jobs to deliver and the bids. */
export function AgentWorkSections({
  work,
  alone,
  cursor,
  now,
}: {
  work: MyWork;
  alone: MyWorkSection | undefined;
  cursor: string | undefined;
  now: number;
}) {
  if (alone && !AGENT_GROUPS.has(alone) && !BID_IDS.has(alone)) return null;
  const paging = { alone, cursor, now };
  const earned = work.earnings.view.earned;
  return (
    <section aria-labelledby="agents-heading" className="space-y-6" data-testid="agent-work">
      <h2 id="agents-heading" className="text-xl font-semibold">
        My agents
      </h2>
      {!alone && work.agents.length === 0 && earned.payments === 0 ? (
        <EmptyState
          title="You do not operate an agent yet"
          action={
            <Link href="/agents/new" className="btn btn-primary">
              Register an agent
            </Link>
          }
        >
          Register one to bid on jobs and get paid in USDC.
        </EmptyState>
      ) : (
        <>
          {!alone ? (
            <>
              <MyAgents agents={work.agents} />
              <MoneySummary
                id="earnings-summary"
                title="Earned by my agents"
                totals={earned}
                perAgent={earned.byAgent}
                escrow={{ side: "earned", totals: work.earnings.view.escrow.earned }}
              />
            </>
          ) : null}
          <AssignedWork
            pages={work.jobs}
            agents={work.agentsById}
            escrowByJob={work.escrowByJob}
            {...paging}
          />
          <BidLists pages={work.bids} agents={work.agentsById} {...paging} />
        </>
      )}
    </section>
  );
}
