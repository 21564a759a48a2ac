// What a viewer sees on a job's page and may do there: one function the page calls
// (`getJobPageView`), the decision itself pure (`decideJobActions`) so that a table can test
// it over every state and viewer. The rules come from the lifecycle table.
import "server-only";
import type { Address } from "viem";
import type { Db } from "@/lib/db";
import type { Settlement } from "@/lib/generated/prisma/client";
import { type PaymentView, toPaymentView } from "@/lib/payments/ledger/payment-view";
import { latestSettlementForJob } from "@/lib/payments/ledger/settlements";
import { sameAddress } from "@/lib/shared/address";
import type { JobStatus } from "@/lib/shared/enums";
import { getAgentsByIds, listAgentsOperatedBy } from "@/lib/marketplace/agents";
import { getJob } from "@/lib/marketplace/jobs";
import { agentWallets, availableOperations, operates } from "@/lib/kernel/lifecycle";
import { listProposals } from "@/lib/marketplace/proposals";
import { listReviewsForJob } from "@/lib/marketplace/reviews";
import type { AgentView, JobView, ProposalView, ReviewView } from "@/lib/shared/view-types";

export type ViewerRole = "anonymous" | "poster" | "assigned_agent" | "visitor";

/** The one panel of actions a viewer gets beside the job (or none). */
export type ActionPanel =
  | { kind: "sign_in" }
  | { kind: "finish_acceptance"; proposalId: string; txHash: string }
  | { kind: "deliver" }
  | { kind: "complete"; alreadyReviewed: boolean }
  | { kind: "review" }
  | { kind: "waiting_for_delivery" }
  | { kind: "waiting_for_confirmation" }
  | null;

/** Who can bid, for a signed-in viewer who is not the poster of an open job. */
export type Bidding =
  | { kind: "can_bid"; agents: { id: string; name: string }[] }
  | { kind: "already_bid" }
  | { kind: "no_agent" }
  | null;

export interface JobActionFacts {
  status: JobStatus;
  paid: boolean;
  role: ViewerRole;
  /** The job's live settlement (pending or succeeded), while the job is open. */
  settlement: Pick<Settlement, "status" | "proposalId" | "txHash"> | null;
  posterReviewed: boolean;
  hasAssignedAgent: boolean;
  /** The viewer's agents, and which of them already bid. */
  viewerAgents: { id: string; name: string }[];
  biddingAgentIds: ReadonlySet<string>;
}

export interface JobActions {
  panel: ActionPanel;
  /** Buttons on each pending proposal. */
  proposal: { reject: boolean; payAndAccept: boolean };
  /** "Choose one: Pay & accept..." above the proposals. */
  payHint: boolean;
  bidding: Bidding;
  canDownload: boolean;
}

/** The decision, from facts only: what the viewer is offered. */
export function decideJobActions(facts: JobActionFacts): JobActions {
  const { status, role, settlement } = facts;
  const poster = role === "poster";
  const operations =
    role === "anonymous"
      ? []
      : availableOperations(status, {
          caller: "viewer",
          posterAddress: poster ? "viewer" : "poster",
          agentWallets: role === "assigned_agent" ? ["viewer"] : [],
          paid: facts.paid,
        });
  const can = (operation: (typeof operations)[number]) => operations.includes(operation);
  const paidNotAccepted =
    settlement?.status === "succeeded" && settlement.txHash ? settlement : null;
  const settling = settlement?.status === "pending";

  return {
    panel: decidePanel(),
    proposal: {
      reject: can("reject") && !paidNotAccepted && !settling,
      payAndAccept: can("accept") && !settlement,
    },
    payHint: poster && status === "open" && !settlement,
    bidding: decideBidding(),
    canDownload: poster || role === "assigned_agent",
  };

  function decidePanel(): ActionPanel {
    if (role === "anonymous") return status === "open" ? { kind: "sign_in" } : null;
    if (poster && status === "open") {
      return paidNotAccepted
        ? {
            kind: "finish_acceptance",
            proposalId: paidNotAccepted.proposalId,
            txHash: paidNotAccepted.txHash!,
          }
        : null;
    }
    if (can("deliver")) return { kind: "deliver" };
    if (can("complete")) return { kind: "complete", alreadyReviewed: facts.posterReviewed };
    if (can("review") && !facts.posterReviewed && facts.hasAssignedAgent) return { kind: "review" };
    if (poster && status === "in_progress") return { kind: "waiting_for_delivery" };
    if (role === "assigned_agent" && status === "delivered") {
      return { kind: "waiting_for_confirmation" };
    }
    return null;
  }

  function decideBidding(): Bidding {
    if (status !== "open" || role === "anonymous" || poster) return null;
    const free = facts.viewerAgents.filter((agent) => !facts.biddingAgentIds.has(agent.id));
    if (free.length > 0) return { kind: "can_bid", agents: free };
    return facts.viewerAgents.length > 0 ? { kind: "already_bid" } : { kind: "no_agent" };
  }
}

export interface JobPageView extends JobActions {
  job: JobView;
  viewer: Address | null;
  role: ViewerRole;
  agents: Map<string, AgentView>;
  assignedAgent: AgentView | undefined;
  activeProposals: ProposalView[];
  rejectedProposals: ProposalView[];
  reviews: ReviewView[];
  /** The job's payment while open and not yet through (pending, or the last failed one). */
  payment: PaymentView | null;
  /** The proposal paid for but not yet accepted, if any. */
  paidProposalId: string | null;
}

/** Everything the job page shows to `viewer` (null: signed out). Throws 404 for an unknown job. */
export async function getJobPageView(
  db: Db,
  jobId: string,
  viewer: Address | null,
): Promise<JobPageView> {
  const job = await getJob(db, jobId);
  const [proposalPage, reviews, viewerAgents, latest] = await Promise.all([
    listProposals(db, job.id, { status: "all", limit: 100 }),
    listReviewsForJob(db, job.id),
    viewer ? listAgentsOperatedBy(db, viewer) : Promise.resolve([]),
    job.status === "open" ? latestSettlementForJob(db, job.id) : Promise.resolve(null),
  ]);
  const proposals = proposalPage.items;
  const agents = await getAgentsByIds(db, [
    ...proposals.map((proposal) => proposal.agentId),
    ...(job.assignedAgentId ? [job.assignedAgentId] : []),
  ]);
  const assignedAgent = job.assignedAgentId ? agents.get(job.assignedAgentId) : undefined;
  const role: ViewerRole = !viewer
    ? "anonymous"
    : sameAddress(viewer, job.posterAddress)
      ? "poster"
      : assignedAgent && operates(viewer, agentWallets(assignedAgent))
        ? "assigned_agent"
        : "visitor";
  const activeProposals = proposals.filter((proposal) => proposal.status !== "rejected");
  const settlement = latest?.status === "failed" ? null : latest;
  const actions = decideJobActions({
    status: job.status,
    paid: Boolean(job.paymentTxHash),
    role,
    settlement,
    posterReviewed: reviews.some(
      (review) => viewer !== null && sameAddress(viewer, review.reviewerAddress),
    ),
    hasAssignedAgent: assignedAgent !== undefined,
    viewerAgents: viewerAgents.map((agent) => ({ id: agent.id, name: agent.name })),
    biddingAgentIds: new Set(activeProposals.map((proposal) => proposal.agentId)),
  });
  return {
    ...actions,
    job,
    viewer,
    role,
    agents,
    assignedAgent,
    activeProposals,
    rejectedProposals: proposals.filter((proposal) => proposal.status === "rejected"),
    reviews,
    payment: latest && latest.status !== "succeeded" ? toPaymentView(latest) : null,
    paidProposalId: settlement?.status === "succeeded" ? settlement.proposalId : null,
  };
}
