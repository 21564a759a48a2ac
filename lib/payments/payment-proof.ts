import { getAddress, type Hex } from "viem";
import type { Db } from "@/lib/db";
import { paymentRequired } from "@/lib/errors";
import type { Settlement } from "@/lib/generated/prisma/client";
import { getChainClient } from "./chain-client";
import { reconcileStalePending } from "./reconcile";
import { findSucceededSettlement, liveSettlementForJob } from "./settlements";
import { verifyTransferReceipt } from "./verify-receipt";

const NOT_PAID =
  "txHash is not a successful settlement of this job and proposal; pay through POST /api/jobs/:id/settle?proposalId=... first";

/**
 * Accept's payment check: `txHash` must be a succeeded settlement recorded by this server
 * for exactly this job and proposal, paid by the poster to the agent's wallet for the bid,
 * and, where the chain answers, a receipt whose Transfer log says the same.
 */
export async function assertPaidFor(
  db: Db,
  facts: {
    job: { id: string; posterAddress: string };
    proposal: { id: string; bidAtomic: bigint };
    agent: { walletAddress: string };
    txHash: string;
  },
): Promise<Settlement> {
  const where = { jobId: facts.job.id, proposalId: facts.proposal.id, txHash: facts.txHash };
  let settlement = await findSucceededSettlement(db, where);
  if (!settlement) {
    // A payment whose record a crash cut short is recovered from the chain first.
    await reconcileStalePending(db, await liveSettlementForJob(db, facts.job.id), { force: true });
    settlement = await findSucceededSettlement(db, where);
  }
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  if (
    !settlement ||
    !same(settlement.payer, facts.job.posterAddress) ||
    !same(settlement.payTo, facts.agent.walletAddress) ||
    settlement.amountAtomic !== facts.proposal.bidAtomic
  ) {
    throw paymentRequired(NOT_PAID);
  }
  await assertReceiptMatches(settlement);
  return settlement;
}

async function assertReceiptMatches(settlement: Settlement) {
  let check;
  try {
    check = await verifyTransferReceipt(getChainClient(), {
      txHash: settlement.txHash as Hex,
      asset: getAddress(settlement.asset),
      from: getAddress(settlement.payer),
      to: getAddress(settlement.payTo),
      amountAtomic: settlement.amountAtomic,
    });
  } catch {
    // The chain is unreachable: our own ledger row is the proof.
    console.warn(`Accept: receipt check skipped for ${settlement.txHash}: chain unreachable`);
    return;
  }
  if (!check.ok) throw paymentRequired(`${NOT_PAID} (${check.reason})`);
}
