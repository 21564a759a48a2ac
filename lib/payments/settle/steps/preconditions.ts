// Step 3, preconditions: is this bid payable at all? Checked before any challenge is issued
// or anything signed, so a client asking for a challenge on a paid job is told it is paid.
import "server-only";
import { getAddress } from "viem";
import type { Db } from "@/lib/db";
import { checkState } from "@/lib/kernel/lifecycle";
import { liveSettlementForJob, settleConflict } from "../../ledger/settlements";
import { isConsentedPayee, isSelfPayment } from "../../payees";
import { reconcileStalePending } from "../../reconcile/settlement";
import { pendingError } from "../answer";
import type { LedgerSnapshot, SettleTarget } from "./target";

/**
 * Throws the 409 that says why the bid cannot be paid now; returns when it can. `seen`: the
 * target's read of the ledger (./target.ts): no live settlement then, none is looked for.
 */
export async function assertPayable(
  db: Db,
  { job, proposal, agent }: SettleTarget,
  seen?: LedgerSnapshot,
): Promise<void> {
  const found =
    seen && seen.liveSettlementId === null ? null : await liveSettlementForJob(db, job.id);
  const live = await reconcileStalePending(db, found);
  // mutant: settle-a-paid-job-is-refused
  if (live?.status === "succeeded") {
    throw settleConflict(
      "already_paid",
      `this job is already paid (txHash ${live.txHash}); accept proposal ${live.proposalId} with that hash`,
    );
  }
  // mutant end
  const state = checkState("pay", job.status);
  // mutant: settle-a-job-that-is-not-open
  if (!state.allowed) throw settleConflict("job_not_open", state.reason);
  // mutant end
  if (proposal.status !== "pending") {
    throw settleConflict("proposal_not_pending", `the proposal is ${proposal.status}, not pending`);
  }
  if (live?.status === "pending") throw pendingError(live);
  await assertPayeeMayBePaid(db, job, proposal, agent);
}

/**
 * Money goes to someone else, and to a wallet that agreed to be paid for this agent: a bid
 * made before either rule existed is refused here, before any challenge or signature.
 */
async function assertPayeeMayBePaid(
  db: Db,
  job: { posterAddress: string },
  proposal: { payeeAddress: string },
  agent: { id: string; operatorAddress: string },
): Promise<void> {
  if (isSelfPayment(job.posterAddress, proposal.payeeAddress)) {
    throw settleConflict(
      "self_payment",
      "this proposal's payee is the job's poster: a poster cannot pay itself",
    );
  }
  if (!(await isConsentedPayee(db, agent, proposal.payeeAddress))) {
    throw settleConflict(
      "payee_consent_pending",
      `the wallet this proposal pays (${getAddress(proposal.payeeAddress)}) has not agreed to be ` +
        "this agent's payee",
    );
  }
}
