// "My work": the signed-in wallet's own jobs, bids and money (GET /api/v1/me/*, the /me page).
import { z } from "zod";
import { PROPOSAL_STATUSES } from "../enums";
import type { JobStatus } from "../enums";
import { cursor, id, limit } from "./common";

/**
 * The groups of "my jobs", one row each: whose jobs they are (the poster's own, or the jobs
 * assigned to agents the wallet operates), the job state (lifecycle.ts), and for open jobs
 * whether a pending proposal waits for the poster. The one place these groupings are decided.
 */
export const MY_JOB_GROUPS = {
  // Poster: a decision waits (pay & accept or reject a bid).
  proposals_waiting: { side: "poster", status: "open", pendingProposals: true },
  // Poster: open, nobody has bid yet (or every bid was rejected).
  awaiting_proposals: { side: "poster", status: "open", pendingProposals: false },
  // Poster: paid and assigned; the agent is working.
  in_progress: { side: "poster", status: "in_progress" },
  // Poster: delivered; the poster confirms (completes) and reviews.
  to_confirm: { side: "poster", status: "delivered" },
  // Poster: completed.
  done: { side: "poster", status: "completed" },
  // Poster: cancelled, the protected payment returned (lifecycle.ts: cancel, or a refund).
  cancelled: { side: "poster", status: "cancelled" },
  // Operator: assigned to one of my agents and paid; deliver it.
  to_deliver: { side: "agent", status: "in_progress" },
  // Operator: delivered; waiting for the poster to confirm.
  awaiting_confirmation: { side: "agent", status: "delivered" },
  // Operator: completed.
  delivered_done: { side: "agent", status: "completed" },
  // Operator: cancelled; the protected payment went back to the poster.
  assigned_cancelled: { side: "agent", status: "cancelled" },
} as const satisfies Record<
  string,
  { side: "poster" | "agent"; status: JobStatus; pendingProposals?: boolean }
>;

export type MyJobGroup = keyof typeof MY_JOB_GROUPS;
export const MY_JOB_GROUP_NAMES = Object.keys(MY_JOB_GROUPS) as [MyJobGroup, ...MyJobGroup[]];

/** The lists of the /me page: each job group, the bids by status, the transactions. */
export const BID_SECTION_IDS = {
  bids_pending: "pending",
  bids_accepted: "accepted",
  bids_rejected: "rejected",
} as const;
export type BidSection = keyof typeof BID_SECTION_IDS;
export const TRANSACTIONS_SECTION = "transactions";
export type MyWorkSection = MyJobGroup | BidSection | typeof TRANSACTIONS_SECTION;
export const MY_WORK_SECTIONS: readonly MyWorkSection[] = [
  ...MY_JOB_GROUP_NAMES,
  ...(Object.keys(BID_SECTION_IDS) as BidSection[]),
  TRANSACTIONS_SECTION,
];

/**
 * The group a job is in for a wallet: the poster's side or the agent's, its state, and (open
 * jobs) whether a pending proposal waits. Undefined for a state no group lists.
 */
export function myJobGroupOf(
  side: "poster" | "agent",
  status: JobStatus,
  pendingProposals: number,
): MyJobGroup | undefined {
  return MY_JOB_GROUP_NAMES.find((name) => {
    const group: { side: string; status: JobStatus; pendingProposals?: boolean } =
      MY_JOB_GROUPS[name];
    return (
      group.side === side &&
      group.status === status &&
      (group.pendingProposals === undefined || group.pendingProposals === pendingProposals > 0)
    );
  });
}

export const myJobsQuerySchema = z.object({
  group: z
    .enum(MY_JOB_GROUP_NAMES, {
      error: `group must be one of: ${MY_JOB_GROUP_NAMES.join(", ")}`,
    })
    .optional()
    .meta({ description: "One group only; without it, all my jobs (each says its group)" }),
  limit,
  cursor,
});
export type MyJobsQuery = z.infer<typeof myJobsQuerySchema>;

export const myProposalsQuerySchema = z.object({
  status: z
    .enum(PROPOSAL_STATUSES, { error: `status must be one of: ${PROPOSAL_STATUSES.join(", ")}` })
    .optional(),
  agentId: id("agentId").optional(),
  limit,
  cursor,
});
export type MyProposalsQuery = z.infer<typeof myProposalsQuerySchema>;

/** The earnings summary with one page of the transactions behind it. */
export const myEarningsQuerySchema = z.object({ limit, cursor });
export type MyEarningsQuery = z.infer<typeof myEarningsQuerySchema>;
