// What posters, agents and the platform's admins do with a protected payment beyond pay,
// accept and complete (lib/marketplace/transitions.ts releases it on complete):
//   cancel   the poster, on an undelivered job past the delivery deadline it saw when
//            paying: the job is cancelled and the hold voided back to the poster;
//   dispute  the poster or the assigned agent, while the payment is held: nothing is
//            released (not by complete, not by the auto-release) until an admin resolves it;
//   resolve  an admin (ADMIN_ADDRESSES): release to the agent, refund to the poster, or split,
//            with a reason on the record.
// Each write decides its race with one conditional UPDATE in its transaction
// (lib/payments/escrow/holds.ts) and sends the operator's transaction after the commit.
import type { Address } from "viem";
import type { Db } from "@/lib/db";
import type { EscrowHold } from "@/lib/generated/prisma/client";
import { agentWallets, authorize, operates, transition } from "@/lib/kernel/lifecycle";
import { lockJob } from "@/lib/kernel/locks";
import { getJobRowOrThrow } from "@/lib/kernel/rows";
import { jobInclude, toJobView } from "@/lib/kernel/serialize";
import { recordEvent, runWrite } from "@/lib/kernel/write";
import { conflict, forbidden } from "@/lib/platform/errors";
import { runAction } from "@/lib/payments/escrow/actions";
import {
  assertCapturable,
  deliverBySeconds,
  holdForJob,
  isDisputed,
  startRelease,
} from "@/lib/payments/escrow/holds";
import { chainNowSeconds } from "@/lib/payments/escrow/requirements";
import { getEscrowSettings } from "@/lib/payments/escrow/settings";
import { sameAddress } from "@/lib/shared/address";
import { usdcToAtomic } from "@/lib/shared/money";
import type { DisputeInput, ResolveDisputeInput } from "@/lib/shared/schemas/jobs";
import type { JobView } from "@/lib/shared/view-types";

async function heldPaymentOf(db: Db, jobId: string): Promise<EscrowHold> {
  const hold = await holdForJob(db, jobId);
  if (!hold) {
    throw conflict(
      "payment_not_protected",
      "this job was paid at once (or not at all): no payment is held for it",
    );
  }
  return hold;
}

async function jobAnswer(db: Db, jobId: string): Promise<JobView> {
  return toJobView(await db.job.findUniqueOrThrow({ where: { id: jobId }, include: jobInclude }));
}

/** cancel: in_progress → cancelled, the held payment voided back to the poster. */
export async function cancelJob(db: Db, caller: Address, jobId: string): Promise<JobView> {
  const job = await getJobRowOrThrow(db, jobId);
  authorize("cancel", job, caller);
  const hold = await heldPaymentOf(db, jobId);
  const now = await chainNowSeconds();
  const deliverBy = deliverBySeconds(hold);
  if (now < deliverBy) {
    throw conflict(
      "job_not_cancellable",
      `the agent has until ${new Date(deliverBy * 1000).toISOString()} to deliver; cancel after that`,
    );
  }
  const action = await runWrite(db, async (tx) => {
    await lockJob(tx, jobId); // the job before the hold (lib/payments/escrow/holds.ts)
    const started = await startRelease(tx, hold, {
      outcome: "refund",
      actor: caller,
      reason: "cancelled by the poster: not delivered by the deadline",
    });
    await transition(tx, "cancel", jobId, { cancelledAt: new Date(), updatedAt: new Date() });
    return started;
  });
  await runAction(db, action.id);
  return jobAnswer(db, jobId);
}

/** dispute: freezes the held payment until an admin resolves it. */
export async function openDispute(
  db: Db,
  caller: Address,
  jobId: string,
  input: DisputeInput,
): Promise<JobView> {
  const job = await getJobRowOrThrow(db, jobId);
  const agent = job.assignedAgentId
    ? await db.agent.findUnique({ where: { id: job.assignedAgentId } })
    : null;
  const party =
    sameAddress(caller, job.posterAddress) || operates(caller, agent ? agentWallets(agent) : []);
  if (!party)
    throw forbidden("not_job_party", "only the job's poster and its assigned agent can dispute");
  // A dispute nobody can resolve would only wait for the capture deadline: a refund by delay.
  if ((getEscrowSettings()?.admins.length ?? 0) === 0) {
    throw conflict(
      "disputes_unavailable",
      "no admin is configured to resolve disputes on this server (ADMIN_ADDRESSES)",
    );
  }
  if (job.status !== "in_progress" && job.status !== "delivered") {
    throw conflict("job_not_in_progress", `the job is ${job.status}: nothing left to dispute`);
  }
  const hold = await heldPaymentOf(db, jobId);
  await runWrite(db, async (tx) => {
    const { count } = await tx.escrowHold.updateMany({
      where: { id: hold.id, state: "held", disputeOpenedAt: null },
      data: { disputeOpenedAt: new Date(), disputeOpenedBy: caller, disputeReason: input.reason },
    });
    if (count !== 1) {
      const now = await tx.escrowHold.findUniqueOrThrow({ where: { id: hold.id } });
      if (now.disputeOpenedAt) throw conflict("dispute_open", "this payment is already disputed");
      throw conflict("payment_not_held", `the payment is no longer held (it is ${now.state})`);
    }
    recordEvent(tx, { type: "dispute.opened", jobId, settlementId: hold.settlementId });
  });
  return jobAnswer(db, jobId);
}

export function isAdmin(wallet: string): boolean {
  return (getEscrowSettings()?.admins ?? []).some((admin) => sameAddress(admin, wallet));
}

/** resolve: an admin's decision on an open dispute, carried out by the operator. */
export async function resolveDispute(
  db: Db,
  caller: Address,
  jobId: string,
  input: ResolveDisputeInput,
): Promise<JobView> {
  if (!isAdmin(caller)) throw forbidden("not_admin", "only a platform admin can resolve disputes");
  const job = await getJobRowOrThrow(db, jobId);
  const hold = await heldPaymentOf(db, jobId);
  if (!isDisputed(hold)) throw conflict("no_open_dispute", "this payment has no open dispute");
  if (input.outcome !== "refund") assertCapturable(hold, await chainNowSeconds());
  let agentAtomic: bigint | undefined;
  if (input.outcome === "split") {
    agentAtomic = usdcToAtomic(input.agentUsdc!);
    if (agentAtomic <= 0n || agentAtomic >= hold.amountAtomic) {
      throw conflict(
        "conflict",
        "a split gives the agent more than 0 and less than the whole payment",
      );
    }
  }
  const action = await runWrite(db, async (tx) => {
    await lockJob(tx, jobId); // the job before the hold (lib/payments/escrow/holds.ts)
    const { count } = await tx.escrowHold.updateMany({
      where: { id: hold.id, state: "held", resolvedAt: null, disputeOpenedAt: { not: null } },
      data: {
        resolution: input.outcome,
        resolutionReason: input.reason,
        resolvedBy: caller,
        resolvedAt: new Date(),
      },
    });
    if (count !== 1) throw conflict("no_open_dispute", "the dispute was resolved already");
    recordEvent(tx, { type: "dispute.resolved", jobId, settlementId: hold.settlementId });
    const started = await startRelease(tx, hold, {
      outcome: input.outcome,
      actor: caller,
      reason: `dispute resolved: ${input.reason}`,
      agentAtomic,
      resolvesDispute: true,
    });
    // The job ends with the decision: completed when the agent is paid (in part), else cancelled.
    const ended = input.outcome === "refund" ? "cancelled" : "completed";
    const { count: moved } = await tx.job.updateMany({
      where: { id: jobId, status: { in: ["in_progress", "delivered"] } },
      data:
        ended === "cancelled"
          ? { status: "cancelled", cancelledAt: new Date(), updatedAt: new Date() }
          : { status: "completed", completedAt: new Date(), updatedAt: new Date() },
    });
    if (moved === 1) {
      recordEvent(tx, { type: ended === "cancelled" ? "job.cancelled" : "job.completed", jobId });
    }
    return started;
  });
  void job;
  await runAction(db, action.id);
  return jobAnswer(db, jobId);
}
