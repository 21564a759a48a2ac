// Step 6, claim: the job's settlement slot is taken before any money moves (the ledger row
// `pending`, with the authorization, the block to search from and the in-flight lease). A
// claim that loses its race resolves through the ledger, the same way a replay does.
import "server-only";
import type { Address } from "viem";
import type { Db } from "@/lib/db";
import type { Prisma, Settlement } from "@/lib/generated/prisma/client";
import { DomainError } from "@/lib/platform/errors";
import { errorSummary } from "@/lib/platform/redact";
import { getChainClient } from "../../chain/client";
import {
  claimSettlementSlot,
  liveSettlementForJob,
  type SettlementClaim,
  settleConflict,
  SlotTakenError,
} from "../../ledger/settlements";
import { settlementBudgetSeconds } from "../../reconcile/settlement";
import type { Resolution } from "../answer";
import type { PaymentHeader } from "../payment-header";
import { replayAuthorization } from "./replay";
import type { SettleTarget } from "./target";

export type Claimed = { claim: Settlement } | { lost: Resolution };

export async function claimSlot(
  db: Db,
  target: SettleTarget,
  header: PaymentHeader,
  payTo: Address,
  /** currentBlock() read before the authorization was verified unused. */
  claimBlock: bigint,
  /** A protected payment's scheme and terms (lib/payments/escrow/authorize.ts). */
  protectedFields?: Pick<SettlementClaim, "scheme" | "escrowTerms">,
): Promise<Claimed> {
  try {
    return {
      claim: await claimSettlementSlot(db, {
        jobId: target.job.id,
        proposalId: target.proposal.id,
        payer: header.authorization.from,
        payTo,
        amountAtomic: target.proposal.bidAtomic,
        network: target.network.network,
        asset: target.network.asset,
        authorizationNonce: header.authorization.nonce,
        validBefore: BigInt(header.authorization.validBefore),
        claimBlock,
        payload: header.payload as unknown as Prisma.InputJsonValue,
        inFlightUntil: new Date(Date.now() + settlementBudgetSeconds() * 1000),
        ...protectedFields,
      }),
    };
  } catch (error) {
    if (!(error instanceof SlotTakenError)) throw error;
    return { lost: await resolveLostClaim(db, target, header) };
  }
}

/**
 * Lost the race: to the same authorization sent twice at once, to another of this
 * authorization's uses, or to another payment for this job.
 */
export async function resolveLostClaim(
  db: Db,
  target: SettleTarget,
  header: PaymentHeader,
): Promise<Resolution> {
  const byAuthorization = await replayAuthorization(db, target, header);
  if (byAuthorization) return byAuthorization;
  const winner = await liveSettlementForJob(db, target.job.id);
  if (winner?.status === "succeeded") {
    throw settleConflict("already_paid", `this job is already paid (txHash ${winner.txHash})`);
  }
  return { kind: "pending", row: winner };
}

/**
 * The block a later search for this authorization's transfer starts from: read before the
 * verify step sees it unused, so that its use (ours, or the payer's own broadcast racing us)
 * is in a later block and the search finds it. Read after, a use mined in between would be
 * missed, and the row would stay pending with the money moved.
 */
export async function currentBlock(): Promise<bigint> {
  try {
    return await getChainClient().getBlockNumber();
  } catch (error) {
    console.error(`Settle: the chain is not answering: ${errorSummary(error)}`);
    throw new DomainError(
      "unavailable",
      "the chain is not answering; nothing was charged, retry shortly",
      { "Retry-After": "5" },
      "chain_unavailable",
    );
  }
}
