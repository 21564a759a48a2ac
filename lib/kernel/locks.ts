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
