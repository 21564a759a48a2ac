// What every step of the pipeline works on: the job, the proposal paid, and the network.
import "server-only";
import type { Db } from "@/lib/db";
import type { Proposal } from "@/lib/generated/prisma/client";
import { getJobRowOrThrow, getProposalRowOrThrow } from "@/lib/kernel/rows";
import type { JobRow } from "@/lib/kernel/serialize";
import { getSettlementNetwork, type SettlementNetwork } from "../../chain/network";

export interface SettleTarget {
  job: JobRow;
  proposal: Proposal;
  network: SettlementNetwork;
}

/** 404 for an unknown job, or a proposal not of this job. */
export async function loadTarget(
  db: Db,
  ids: { jobId: string; proposalId: string },
): Promise<SettleTarget> {
  const job = await getJobRowOrThrow(db, ids.jobId);
  const proposal = await getProposalRowOrThrow(db, job.id, ids.proposalId);
  return { job, proposal, network: getSettlementNetwork() };
}
