import type { Prisma } from "@/lib/generated/prisma/client";
import type { JobStatus } from "@/lib/shared/enums";

/**
 * Locks the job row if, and only if, it is in `status`. A write that must not interleave
 * with a transition (a proposal while the job is being accepted, a review while it is
 * being delivered) takes this lock in its transaction: `share` lets such writes run side by
 * side, while a transition's conditional UPDATE waits for them (and they for it).
 */
export async function lockJobInStatus(
  tx: Prisma.TransactionClient,
  jobId: string,
  status: JobStatus,
  mode: "share" | "update",
): Promise<boolean> {
  const rows =
    mode === "share"
      ? await tx.$queryRaw<
          { id: string }[]
        >`SELECT "id" FROM "jobs" WHERE "id" = ${jobId} AND "status"::text = ${status} FOR SHARE`
      : await tx.$queryRaw<
          { id: string }[]
        >`SELECT "id" FROM "jobs" WHERE "id" = ${jobId} AND "status"::text = ${status} FOR UPDATE`;
  return rows.length === 1;
}

/**
 * Locks the job row, whatever its status, in the mode its UPDATE takes (NO KEY UPDATE: a
 * foreign-key check's KEY SHARE, such as an event's insert, still passes). The lock order of a
 * write that changes both a job and its held payment is the job first, then the hold
 * (lib/payments/escrow/holds.ts): two such writes at once then queue on the job instead of
 * each holding the row the other waits for.
 */
export async function lockJob(tx: Prisma.TransactionClient, jobId: string): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM "jobs" WHERE "id" = ${jobId} FOR NO KEY UPDATE`;
}

/** Locks the proposal row if, and only if, it is this job's and still pending. */
export async function lockPendingProposal(
  tx: Prisma.TransactionClient,
  jobId: string,
  proposalId: string,
): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT "id" FROM "proposals"
    WHERE "id" = ${proposalId} AND "jobId" = ${jobId} AND "status" = 'pending'
    FOR UPDATE`;
  return rows.length === 1;
}
