import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db";
import { notFound } from "@/lib/errors";
import { getAgentRowOrThrow } from "@/lib/marketplace/agents";
import { getJobRowOrThrow } from "@/lib/marketplace/jobs";
import { getProposalRowOrThrow } from "@/lib/marketplace/proposals";
import { claimSettlementSlot, markSettlementSucceeded } from "@/lib/payments/settlements";

/** Test hooks exist only when ENABLE_TEST_HOOKS=true; otherwise their paths are 404. */
export function assertTestHooksEnabled(): void {
  if (getConfig().ENABLE_TEST_HOOKS !== "true") throw notFound("no such API endpoint");
}

/**
 * Records a succeeded settlement through the real ledger functions, without a chain, so
 * that API tests can reach accept. Payer, payee and amount default to the true values.
 */
export async function recordTestSettlement(
  db: Db,
  input: {
    jobId: string;
    proposalId: string;
    txHash: string;
    payer?: string;
    payTo?: string;
    amountAtomic?: bigint;
  },
) {
  const job = await getJobRowOrThrow(db, input.jobId);
  const proposal = await getProposalRowOrThrow(db, input.jobId, input.proposalId);
  const agent = await getAgentRowOrThrow(db, proposal.agentId);
  const claim = await claimSettlementSlot(db, {
    jobId: job.id,
    proposalId: proposal.id,
    payer: (input.payer ?? job.posterAddress) as `0x${string}`,
    payTo: (input.payTo ?? agent.walletAddress) as `0x${string}`,
    amountAtomic: input.amountAtomic ?? proposal.bidAtomic,
    network: "eip155:31337",
    asset: "0x0000000000000000000000000000000000000001",
    authorizationNonce: input.txHash,
    validBefore: 0n,
  });
  return markSettlementSucceeded(db, claim.id, input.txHash);
}
