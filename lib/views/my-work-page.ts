// The /me page's data: the same lists as GET /api/v1/me/* (lib/marketplace/work.ts,
// lib/payments/ledger/earnings.ts), a preview of each or one list paged, plus what puts each job's
// next action in place: the poster's pending bids with the buttons the job page would offer
// (the same decision, decideJobActions), whether the poster reviewed a job already, and where
// each listed job's protected payment is (held, released, refunded).
import "server-only";
import type { Address } from "viem";
import type { Db } from "@/lib/db";
import type { EscrowHold } from "@/lib/generated/prisma/client";
import { DomainError } from "@/lib/platform/errors";
import { getMyEarnings } from "@/lib/payments/ledger/earnings";
import { liveSettlementForJob } from "@/lib/payments/ledger/settlements";
import {
  BID_SECTION_IDS,
  type BidSection,
  MY_JOB_GROUP_NAMES,
  type MyJobGroup,
  type MyWorkSection,
  TRANSACTIONS_SECTION,
} from "@/lib/shared/schemas/me";
import { atomicToUsdc } from "@/lib/shared/money";
import type {
  AgentView,
  JobView,
  MyEarningsView,
  MyJobView,
  MyProposalView,
  MyTransactionView,
  ProposalView,
} from "@/lib/shared/view-types";
import { getAgentsByIds, listAgentsOperatedBy } from "@/lib/marketplace/agents";
import { decideJobActions, type JobActions } from "./job-page";
import type { Page } from "@/lib/kernel/pagination";
import { listProposals } from "@/lib/marketplace/proposals";
import { listMyJobs, listMyProposals } from "@/lib/marketplace/work";

/** Items per list on the overview, and per page when one list is shown alone. */
export const PREVIEW_SIZE = 5;
export const SECTION_PAGE_SIZE = 20;

export interface MyWork {
  jobs: Partial<Record<MyJobGroup, Page<MyJobView>>>;
  bids: Partial<Record<BidSection, Page<MyProposalView>>>;
  earnings: { view: MyEarningsView; nextCursor: string | null };
  /** The agents the wallet operates. */
  agents: AgentView[];
  /** Every agent the page names (the wallet's and those bidding on its jobs). */
  agentsById: Map<string, AgentView>;
  decisions: Map<string, PosterDecision>;
  reviewed: Set<string>;
  /** The listed jobs paid with a protected payment: where its money is, by job id. */
  escrowByJob: Map<string, EscrowAmounts>;
}

export type EscrowAmounts = NonNullable<MyTransactionView["escrow"]>;

/**
 * Everything /me shows to `wallet`: every list's first few items, or with `section` that one
 * list from `cursor` (a cursor that is not valid starts it over). The summaries always come.
 */
export async function loadMyWork(
  db: Db,
  wallet: Address,
  { section, cursor }: { section?: MyWorkSection; cursor?: string },
): Promise<MyWork> {
  const shown = (id: MyWorkSection) => section === undefined || section === id;
  const limit = section ? SECTION_PAGE_SIZE : PREVIEW_SIZE;
  const from = (id: MyWorkSection) => (section === id ? cursor : undefined);
  const jobGroups = MY_JOB_GROUP_NAMES.filter(shown);
  const bidSections = (Object.keys(BID_SECTION_IDS) as BidSection[]).filter(shown);
  const [jobPages, bidPages, earnings, agents] = await Promise.all([
    Promise.all(
      jobGroups.map((group) =>
        fromValidCursor(from(group), (at) => listMyJobs(db, wallet, { group, limit, cursor: at })),
      ),
    ),
    Promise.all(
      bidSections.map((id) =>
        fromValidCursor(from(id), (at) =>
          listMyProposals(db, wallet, { status: BID_SECTION_IDS[id], limit, cursor: at }),
        ),
      ),
    ),
    fromValidCursor(from(TRANSACTIONS_SECTION), (at) =>
      getMyEarnings(db, wallet, {
        limit: section === TRANSACTIONS_SECTION ? SECTION_PAGE_SIZE : PREVIEW_SIZE,
        cursor: at,
      }),
    ),
    listAgentsOperatedBy(db, wallet),
  ]);
  const jobs = Object.fromEntries(jobGroups.map((group, i) => [group, jobPages[i]!]));
  const bids = Object.fromEntries(bidSections.map((id, i) => [id, bidPages[i]!]));
  const waiting = jobs.proposals_waiting?.items.map((item) => item.job) ?? [];
  const reviewable = [...(jobs.to_confirm?.items ?? []), ...(jobs.in_progress?.items ?? [])];
  const listedJobIds = Object.values(jobs).flatMap((page) => page.items.map((item) => item.job.id));
  const [decisions, reviewed, bidAgents, escrowByJob] = await Promise.all([
    posterDecisions(db, waiting),
    reviewedJobIds(
      db,
      wallet,
      reviewable.map((item) => item.job.id),
    ),
    getAgentsByIds(
      db,
      bidPages.flatMap((page) => page.items.map((item) => item.proposal.agentId)),
    ),
    escrowOfJobs(db, listedJobIds),
  ]);
  const agentsById = new Map([...bidAgents, ...agents.map((agent) => [agent.id, agent] as const)]);
  for (const decision of decisions.values()) {
    for (const [id, agent] of decision.agents) agentsById.set(id, agent);
  }
  return { jobs, bids, earnings, agents, agentsById, decisions, reviewed, escrowByJob };
}

/** The protected payments of these jobs (their live hold), by job id; pay-now jobs are absent. */
export async function escrowOfJobs(db: Db, jobIds: string[]): Promise<Map<string, EscrowAmounts>> {
  if (jobIds.length === 0) return new Map();
  const holds = await db.escrowHold.findMany({
    where: { jobId: { in: [...new Set(jobIds)] }, settlement: { status: "succeeded" } },
  });
  return new Map(holds.map((hold) => [hold.jobId, escrowAmounts(hold)]));
}

/** The same amounts as the job's payment view (lib/payments/ledger/payment-view.ts). */
function escrowAmounts(hold: EscrowHold): EscrowAmounts {
  return {
    state: hold.state,
    heldUsdc: atomicToUsdc(hold.amountAtomic - hold.capturedAtomic - hold.returnedAtomic),
    releasedUsdc: atomicToUsdc(hold.capturedAtomic - hold.feeAtomic),
    feeUsdc: atomicToUsdc(hold.feeAtomic),
    refundedUsdc: atomicToUsdc(hold.returnedAtomic),
  };
}

/** Loads from `cursor`, or from the start when the cursor is not valid (a stale link). */
async function fromValidCursor<T>(
  cursor: string | undefined,
  load: (cursor: string | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await load(cursor);
  } catch (error) {
    if (cursor === undefined || !(error instanceof DomainError && error.kind === "invalid")) {
      throw error;
    }
    return load(undefined);
  }
}

/** Bids shown per job on /me; the job page has them all. */
export const BIDS_SHOWN_PER_JOB = 3;

export interface PosterDecision {
  /** The oldest pending bids (at most BIDS_SHOWN_PER_JOB). */
  proposals: ProposalView[];
  agents: Map<string, AgentView>;
  actions: JobActions;
}

/** For each of the poster's open jobs: its first pending bids and what the poster may do. */
export async function posterDecisions(
  db: Db,
  jobs: JobView[],
): Promise<Map<string, PosterDecision>> {
  const open = jobs.filter((job) => job.status === "open");
  const loaded = await Promise.all(
    open.map(async (job) => {
      const [page, settlement] = await Promise.all([
        listProposals(db, job.id, { status: "pending", limit: BIDS_SHOWN_PER_JOB }),
        liveSettlementForJob(db, job.id),
      ]);
      return { job, proposals: page.items, settlement };
    }),
  );
  const agents = await getAgentsByIds(
    db,
    loaded.flatMap(({ proposals }) => proposals.map((proposal) => proposal.agentId)),
  );
  return new Map(
    loaded.map(({ job, proposals, settlement }) => [
      job.id,
      {
        proposals,
        agents,
        actions: decideJobActions({
          status: job.status,
          paid: Boolean(job.paymentTxHash),
          role: "poster",
          settlement,
          posterReviewed: false,
          hasAssignedAgent: false,
          viewerAgents: [],
          biddingAgentIds: new Set(),
        }),
      },
    ]),
  );
}

/** Which of these jobs `wallet` has reviewed (CompleteForm then asks for no rating). */
export async function reviewedJobIds(
  db: Db,
  wallet: Address,
  jobIds: string[],
): Promise<Set<string>> {
  if (jobIds.length === 0) return new Set();
  const rows = await db.review.findMany({
    where: { jobId: { in: jobIds }, reviewerAddress: wallet },
    select: { jobId: true },
  });
  return new Set(rows.map((row) => row.jobId));
}
