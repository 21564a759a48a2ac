import { getProposalRowOrThrow } from "@/lib/kernel/rows";
import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { conflict, isUniqueViolation } from "@/lib/platform/errors";
import { usdcToAtomic } from "@/lib/shared/money";
import { liveSettlementForProposal } from "@/lib/payments/ledger/settlements";
import type { CreateProposalInput, ListProposalsQuery } from "@/lib/shared/schemas/proposals";
import { getAgentRowOrThrow } from "@/lib/kernel/rows";
import { newId } from "@/lib/kernel/ids";
import { getJobRowOrThrow } from "@/lib/kernel/rows";
import { agentWallets, announce, authorize, holdState } from "@/lib/kernel/lifecycle";
import { runWrite } from "@/lib/kernel/write";
import { lockPendingProposal } from "@/lib/kernel/locks";
import { payeeConsentPending } from "@/lib/payments/payees";
import { assertAtLeastMinimum } from "@/lib/kernel/reputation";
import { assertNotSelfPayment } from "@/lib/payments/payees";
import { afterCursor, decodeCursor, orderBy, type Page, toPage } from "@/lib/kernel/pagination";
import { toProposalView } from "@/lib/kernel/serialize";
import type { ProposalView } from "@/lib/shared/view-types";

export async function submitProposal(
  db: Db,
  caller: Address,
  jobId: string,
  input: CreateProposalInput,
): Promise<ProposalView> {
  const bidAtomic = usdcToAtomic(input.bidUsdc);
  assertAtLeastMinimum("bidUsdc", bidAtomic);
  const job = await getJobRowOrThrow(db, jobId);
  const agent = await getAgentRowOrThrow(db, input.agentId);
  if (agent.walletAddress !== null) assertNotSelfPayment(job.posterAddress, agent.walletAddress);
  authorize("propose", job, caller, agentWallets(agent));
  const payeeAddress = agent.walletAddress;
  if (payeeAddress === null) throw payeeConsentPending(agent);
  try {
    const row = await runWrite(db, async (tx) => {
      await holdState(tx, "propose", jobId);
      const proposal = await tx.proposal.create({
        data: {
          id: newId("prop"),
          jobId,
          agentId: agent.id,
          bidAtomic,
          etaDays: input.etaDays,
          message: input.message,
          // Who this bid pays, now and after any later change of the agent's wallet.
          payeeAddress,
        },
      });
      announce(tx, "propose", { jobId, proposalId: proposal.id });
      return proposal;
    });
    return toProposalView(row);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw conflict("already_bid", "this agent already has an active proposal on this job");
    }
    throw error;
  }
}

export async function listProposals(
  db: Db,
  jobId: string,
  query: ListProposalsQuery,
): Promise<Page<ProposalView>> {
  await getJobRowOrThrow(db, jobId);
  const status =
    query.status === "all"
      ? {}
      : query.status === "active"
        ? { status: { not: "rejected" as const } }
        : { status: query.status };
  const rows = await db.proposal.findMany({
    where: afterCursor({ jobId, ...status }, decodeCursor(query.cursor), "asc"),
    orderBy: orderBy("asc"),
    take: query.limit + 1,
  });
  return toPage(rows, query.limit, toProposalView);
}

export async function rejectProposal(
  db: Db,
  caller: Address,
  jobId: string,
  proposalId: string,
): Promise<ProposalView> {
  const job = await getJobRowOrThrow(db, jobId);
  await getProposalRowOrThrow(db, jobId, proposalId);
  authorize("reject", job, caller);
  const row = await runWrite(db, async (tx) => {
    await holdState(tx, "reject", jobId);
    // The settlement claim locks this same row: a proposal is paid or rejected, never both.
    if (!(await lockPendingProposal(tx, jobId, proposalId))) {
      throw conflict("proposal_not_pending", "the proposal is not pending");
    }
    const payment = await liveSettlementForProposal(tx, proposalId);
    // mutant: reject-live-settlement
    if (payment) {
      throw payment.status === "succeeded"
        ? conflict(
            "proposal_paid",
            "this proposal is paid; accept it with the payment's txHash instead of rejecting it",
          )
        : conflict(
            "settlement_pending",
            "a payment for this proposal is being settled; it cannot be rejected",
          );
    }
    // mutant end
    await tx.proposal.update({ where: { id: proposalId }, data: { status: "rejected" } });
    announce(tx, "reject", { jobId, proposalId });
    return tx.proposal.findUniqueOrThrow({ where: { id: proposalId } });
  });
  return toProposalView(row);
}
