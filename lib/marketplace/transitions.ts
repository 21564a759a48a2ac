import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { conflict, forbidden, notFound } from "@/lib/platform/errors";
import { assertPaidFor } from "@/lib/payments/ledger/payment-proof";
import type { AcceptInput, CompleteInput, DeliverInput } from "@/lib/shared/schemas/jobs";
import { decodeAttachments } from "./attachments";
import { newId } from "@/lib/kernel/ids";
import { lockJob } from "@/lib/kernel/locks";
import { getJobRowOrThrow } from "@/lib/kernel/rows";
import { agentWallets, announce, authorize, checkRole, transition } from "@/lib/kernel/lifecycle";
import { runWrite } from "@/lib/kernel/write";
import { getProposalRowOrThrow } from "@/lib/kernel/rows";
import { awardBadge } from "@/lib/kernel/reputation";
import { runAction } from "@/lib/payments/escrow/actions";
import {
  assertCapturable,
  deliverBySeconds,
  holdForJob,
  startRelease,
} from "@/lib/payments/escrow/holds";
import { chainNowSeconds } from "@/lib/payments/escrow/requirements";
import { getEscrowSettings } from "@/lib/payments/escrow/settings";
import { jobInclude, toJobView } from "@/lib/kernel/serialize";
import type { JobView } from "@/lib/shared/view-types";

/**
 * accept: open → in_progress, only with a settlement this server recorded for exactly this
 * job and proposal. One transaction: the job, the accepted proposal, the other proposals.
 */
export async function acceptProposal(
  db: Db,
  caller: Address,
  jobId: string,
  input: AcceptInput,
): Promise<JobView> {
  const job = await getJobRowOrThrow(db, jobId);
  const proposal = await getProposalRowOrThrow(db, jobId, input.proposalId);
  // A retry of an accept that already went through answers the job unchanged (to its poster).
  if (isSameAcceptance(job, proposal.id, input.txHash)) {
    const role = checkRole("accept", { caller, posterAddress: job.posterAddress });
    if (!role.allowed) throw forbidden(role.code, role.reason);
    return toJobView(job);
  }
  authorize("accept", job, caller);
  if (proposal.status !== "pending")
    throw conflict("proposal_not_pending", `the proposal is ${proposal.status}, not pending`);

  await assertPaidFor(db, { job, proposal, txHash: input.txHash });
  const hold = await heldPaymentToAccept(db, jobId);

  const now = new Date();
  const row = await runWrite(db, async (tx) => {
    if (hold) {
      await lockJob(tx, jobId); // the job before the hold (lib/payments/escrow/holds.ts)
      // Still held once the job is locked (a payer's reclaim records itself under this lock).
      // The delivery deadline stays the one the poster saw when paying, however late the
      // accept: the review and dispute windows must fit before heldUntil.
      if ((await tx.escrowHold.count({ where: { id: hold.id, state: "held" } })) !== 1) {
        throw conflict("payment_not_held", "the held payment is no longer held");
      }
    }
    await transition(tx, "accept", jobId, {
      assignedAgentId: proposal.agentId,
      acceptedProposalId: proposal.id,
      paymentTxHash: input.txHash,
      updatedAt: now,
    });
    const accepted = await tx.proposal.updateMany({
      where: { id: proposal.id, jobId, status: "pending" },
      data: { status: "accepted", updatedAt: now },
    });
    if (accepted.count !== 1)
      throw conflict("proposal_not_pending", "the proposal is no longer pending");
    // No proposal can join now: submitting one holds the job open (holdState), and it is not.
    const others = await tx.proposal.updateManyAndReturn({
      where: { jobId, status: "pending" },
      data: { status: "rejected", updatedAt: now },
      select: { id: true },
    });
    for (const other of others) announce(tx, "reject", { jobId, proposalId: other.id });
    return tx.job.findUniqueOrThrow({ where: { id: jobId }, include: jobInclude });
  });
  return toJobView(row);
}

/** A protected payment's hold, still held and capturable, or null for pay-now. */
async function heldPaymentToAccept(db: Db, jobId: string) {
  const hold = await holdForJob(db, jobId);
  if (!hold || !getEscrowSettings()) return null;
  if (hold.state !== "held") {
    throw conflict("payment_not_held", `the payment is no longer held (it is ${hold.state})`);
  }
  assertCapturable(hold, await chainNowSeconds());
  return hold;
}

function isSameAcceptance(
  job: { status: string; acceptedProposalId: string | null; paymentTxHash: string | null },
  proposalId: string,
  txHash: string,
) {
  return (
    job.status === "in_progress" &&
    job.acceptedProposalId === proposalId &&
    job.paymentTxHash === txHash
  );
}

/**
 * The deliver rules (403 not the assigned agent's wallet or operator, 409 not in progress; for
 * a protected payment, 409 past its delivery deadline), checked before a large body is read: a
 * stranger's upload is refused without reading it.
 */
export async function assertMayDeliver(db: Db, caller: Address, jobId: string) {
  await assertDeliverer(db, caller, jobId);
  await assertDeliveryDue(db, jobId);
}

/** 403 not the assigned agent's wallet or operator, 409 not in progress. */
async function assertDeliverer(db: Db, caller: Address, jobId: string) {
  const job = await getJobRowOrThrow(db, jobId);
  const agent = job.assignedAgentId
    ? await db.agent.findUnique({ where: { id: job.assignedAgentId } })
    : null;
  authorize("deliver", job, caller, agent ? agentWallets(agent) : []);
}

/**
 * A protected payment is delivered for by its deadline (deliverBy, shown when paying), or not
 * at all: a later delivery would leave its review and dispute windows short of heldUntil, after
 * which nothing can be released (the agent would have given the work for nothing, the poster
 * would have it and the refund). From deliverBy the poster may cancel instead.
 */
async function assertDeliveryDue(db: Db, jobId: string) {
  const hold = await holdForJob(db, jobId);
  if (!hold || hold.state !== "held") return;
  const deliverBy = deliverBySeconds(hold);
  // The chain's clock, as the escrow keeps it; while the chain does not answer, the wall
  // clock (a block's time is at or behind it): an outage must not cost an agent its delivery.
  const now = await chainNowSeconds().catch(() => Date.now() / 1000);
  if (now >= deliverBy) {
    throw conflict(
      "delivery_deadline_passed",
      `the delivery deadline of this protected payment passed at ${new Date(deliverBy * 1000).toISOString()}: nothing can be delivered; the poster may cancel`,
    );
  }
}

/**
 * deliver: in_progress → delivered, by the assigned agent's wallet or operator. `dueChecked`:
 * assertMayDeliver ran before the body was read (the route's beforeBody), and the deadline is
 * not held against the time the upload then took.
 */
export async function deliverJob(
  db: Db,
  caller: Address,
  jobId: string,
  input: DeliverInput,
  { dueChecked = false }: { dueChecked?: boolean } = {},
): Promise<JobView> {
  if (dueChecked) await assertDeliverer(db, caller, jobId);
  else await assertMayDeliver(db, caller, jobId);
  const files = decodeAttachments(input.attachments);
  const now = new Date();
  const row = await runWrite(db, async (tx) => {
    await transition(tx, "deliver", jobId, {
      deliveredAt: now,
      updatedAt: now,
    });
    if (files.length > 0) {
      await tx.attachment.createMany({
        data: files.map((file, index) => ({
          id: newId("att"),
          jobId,
          name: file.name,
          size: file.size,
          type: file.type,
          data: new Uint8Array(file.data),
          // Keeps the given order when listed by createdAt.
          createdAt: new Date(now.getTime() + index),
        })),
      });
    }
    return tx.job.findUniqueOrThrow({ where: { id: jobId }, include: jobInclude });
  });
  return toJobView(row);
}

/**
 * complete: delivered → completed, by the poster. The optional rating/comment becomes the
 * poster's review unless one exists; the poster's first completion of a job paid at least the
 * minimum to someone else earns the Verified badge.
 */
export async function completeJob(
  db: Db,
  caller: Address,
  jobId: string,
  input: CompleteInput,
): Promise<JobView> {
  const job = await getJobRowOrThrow(db, jobId);
  authorize("complete", job, caller);
  if (!job.assignedAgentId) throw notFound("agent_not_found", "the job has no assigned agent");
  const agentId = job.assignedAgentId;
  const now = new Date();
  const hold = await holdForJob(db, jobId);
  if (hold) assertCapturable(hold, await chainNowSeconds());
  let release: { id: string } | undefined;
  const row = await runWrite(db, async (tx) => {
    await transition(tx, "complete", jobId, {
      completedAt: now,
      updatedAt: now,
    });
    // A protected payment is released to the agent: decided here, with the completion (a
    // dispute or a cancel racing it loses, or wins and this completion is undone), sent after.
    if (hold) release = await startRelease(tx, hold, { outcome: "release", actor: caller });
    if (input.rating !== undefined) {
      const reviewId = newId("rev");
      const review = await tx.review.createMany({
        data: [
          {
            id: reviewId,
            agentId,
            jobId,
            reviewerAddress: job.posterAddress,
            rating: input.rating,
            comment: input.comment ?? "",
          },
        ],
        skipDuplicates: true,
      });
      if (review.count === 1) announce(tx, "review", { jobId, reviewId });
    }
    // The badge is earned by paying someone else at least the minimum (reputation.ts).
    await awardBadge(tx, jobId);
    return tx.job.findUniqueOrThrow({ where: { id: jobId }, include: jobInclude });
  });
  if (release) await runAction(db, release.id);
  return toJobView(row);
}
