import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { conflict, isUniqueViolation, notFound } from "@/lib/errors";
import type { Proposal } from "@/lib/generated/prisma/client";
import { usdcToAtomic } from "@/lib/shared/money";
import { liveSettlementForProposal } from "@/lib/payments/settlements";
import type { CreateProposalInput, ListProposalsQuery } from "@/lib/shared/schemas/proposals";
import { getAgentRowOrThrow } from "./agents";
import { isPossibleId, newId } from "./ids";
import { getJobRowOrThrow } from "./jobs";
import { agentWallets, announce, authorize, holdState, runWrite } from "./lifecycle";
import { lockPendingProposal } from "./locks";
import { payeeConsentPending } from "./payee-consent";
import { assertAtLeastMinimum, assertNotSelfPayment } from "./reputation";
import { afterCursor, decodeCursor, orderBy, type Page, toPage } from "./pagination";
import { toProposalView } from "./serialize";
import type { ProposalView } from "@/lib/shared/views";

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
      throw conflict("this agent already has an active proposal on this job");
    }
    throw error;
  }
}

export async function getProposalRowOrThrow(
  db: Db,
  jobId: string,
  proposalId: string,
): Promise<Proposal> {
  const row = !isPossibleId(proposalId)
    ? null
    : await db.proposal.findUnique({ where: { id: proposalId } });
  // A proposal of another job is as unknown here as a missing one.
  if (!row || row.jobId !== jobId)
    throw notFound(`proposal ${proposalId} not found on job ${jobId}`);
  return row;
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
    where: { jobId, ...status, ...afterCursor(decodeCursor(query.cursor), "asc") },
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
      throw conflict("the proposal is not pending");
    }
    const payment = await liveSettlementForProposal(tx, proposalId);
    if (payment) {
      throw conflict(
        payment.status === "succeeded"
          ? "this proposal is paid; accept it with the payment's txHash instead of rejecting it"
          : "a payment for this proposal is being settled; it cannot be rejected",
      );
    }
    await tx.proposal.update({ where: { id: proposalId }, data: { status: "rejected" } });
    announce(tx, "reject", { jobId, proposalId });
    return tx.proposal.findUniqueOrThrow({ where: { id: proposalId } });
  });
  return toProposalView(row);
}
