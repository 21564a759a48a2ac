import { type Address, getAddress } from "viem";
import type { Caller } from "@/lib/auth/caller";
import type { Db } from "@/lib/db";
import { conflict } from "@/lib/platform/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { getAgentRowOrThrow } from "@/lib/kernel/rows";
import { getJobRowOrThrow } from "@/lib/kernel/rows";
import { fitPage } from "@/lib/kernel/pagination";
import { agentWallets } from "@/lib/kernel/lifecycle";
import { runWrite } from "@/lib/kernel/write";
import { getProposalRowOrThrow } from "@/lib/kernel/rows";
import { writeNotifications } from "@/lib/kernel/notices";
import { sameAddress } from "@/lib/shared/address";
import type {
  ListMessagesQuery,
  MarkThreadReadInput,
  PostMessageInput,
} from "@/lib/shared/schemas/conversations";
import type { MessageView, ThreadReadView } from "@/lib/shared/view-types";
import { assertMayWrite, requireSide, type ThreadParties, type ThreadSide } from "./participants";

/**
 * A proposal's private thread: read, mark read and write. Messages are not events: the public
 * feed never learns that a conversation exists. The other side is told through a
 * `message.created` notification, written in the message's transaction. Reading changes
 * nothing (a GET has no side effect); the reader's marker moves on an explicit mark-read,
 * which the job page sends when it shows a thread.
 */

/**
 * pg_advisory_xact_lock(key1, hashtext(proposalId)): messages of one thread are inserted one
 * transaction at a time, so their ids follow commit order and a read marker never skips one.
 */
const THREAD_LOCK_KEY = 1836281701;

export interface ThreadPage {
  items: MessageView[];
  nextCursor: string | null;
  /** Messages from the other side after the reader's marker, once this page is read. */
  unreadCount: number;
}

/** The thread's parties and the caller's side: 404 unknown job or proposal, 403 others. */
export async function openThread(db: Db, wallet: string, jobId: string, proposalId: string) {
  const job = await getJobRowOrThrow(db, jobId);
  const proposal = await getProposalRowOrThrow(db, jobId, proposalId);
  const agent = await getAgentRowOrThrow(db, proposal.agentId);
  const parties: ThreadParties = {
    posterAddress: job.posterAddress,
    agentWallets: agentWallets(agent),
  };
  return { proposal, parties, side: requireSide(wallet, parties) };
}

/** Messages after `after`, oldest first (newest last), with what the reader has not read. */
export async function readThread(
  db: Db,
  wallet: Address,
  jobId: string,
  proposalId: string,
  query: ListMessagesQuery,
): Promise<ThreadPage> {
  const { parties, side } = await openThread(db, wallet, jobId, proposalId);
  const rows = await db.message.findMany({
    where: { proposalId, id: { gt: query.after ?? 0n } },
    orderBy: { id: "asc" },
    take: query.limit + 1,
  });
  const views = rows.slice(0, query.limit).map((row) => toMessageView(row, parties));
  const page = fitPage(views, rows.length > query.limit, (index) => views[index]!.id);
  return {
    ...page,
    unreadCount: await unreadInThread(db, wallet, proposalId, parties, side),
  };
}

/**
 * Marks the thread read for the caller up to message `upTo` (default: the newest), with its
 * `message.created` notifications. The marker only moves forward; a message id past the
 * thread's newest is taken as the newest, so a stale page can never mark unseen messages.
 */
export async function markThreadRead(
  db: Db,
  wallet: Address,
  jobId: string,
  proposalId: string,
  input: MarkThreadReadInput,
): Promise<ThreadReadView> {
  const { parties, side } = await openThread(db, wallet, jobId, proposalId);
  const newest = await db.message.findFirst({
    where: { proposalId, ...(input.upTo !== undefined ? { id: { lte: input.upTo } } : {}) },
    orderBy: { id: "desc" },
    select: { id: true },
  });
  if (newest) await moveReadMarker(db, getAddress(wallet), proposalId, newest.id);
  return {
    unreadCount: await unreadInThread(db, wallet, proposalId, parties, side),
  };
}

/** Writes a message (409 once the proposal is rejected: the poster has said no). */
export async function postMessage(
  db: Db,
  caller: Caller,
  jobId: string,
  proposalId: string,
  input: PostMessageInput,
): Promise<MessageView> {
  const { parties, side } = await openThread(db, caller.wallet, jobId, proposalId);
  assertMayWrite(caller, side);
  const sender = getAddress(caller.wallet);
  const row = await runWrite(db, async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${THREAD_LOCK_KEY}::int, hashtext(${proposalId}))`;
    // Rejecting the proposal waits for this share lock, and this waits for a reject under way.
    const open = await tx.$queryRaw<{ id: string }[]>`
      SELECT "id" FROM "proposals" WHERE "id" = ${proposalId} AND "status" <> 'rejected' FOR SHARE`;
    if (open.length !== 1) {
      throw conflict(
        "thread_closed",
        "the proposal was rejected: its conversation is closed (read-only)",
      );
    }
    const message = await tx.message.create({
      data: { jobId, proposalId, senderAddress: sender, body: input.body },
    });
    await moveReadMarker(tx, sender, proposalId, message.id);
    await writeNotifications(tx, [
      {
        type: "message.created",
        jobId,
        proposalId,
        messageId: message.id,
        sides: parties,
        actor: sender,
      },
    ]);
    return message;
  });
  return toMessageView(row, parties);
}

/** Unread messages per thread the viewer takes part in (the job page's badges). */
export async function unreadInThread(
  db: Db,
  wallet: string,
  proposalId: string,
  parties: ThreadParties,
  side: ThreadSide,
): Promise<number> {
  const marker = await db.threadRead.findUnique({
    where: { proposalId_wallet: { proposalId, wallet: getAddress(wallet) } },
  });
  const poster = getAddress(parties.posterAddress);
  return db.message.count({
    where: {
      proposalId,
      id: { gt: marker?.lastReadMessageId ?? 0n },
      // From the other side: what the poster wrote is news to the agent's side, and back.
      senderAddress: side === "poster" ? { not: poster } : poster,
    },
  });
}

/** Moves the reader's marker forward (never back) and reads its message notifications. */
async function moveReadMarker(
  db: Db | Prisma.TransactionClient,
  wallet: Address,
  proposalId: string,
  messageId: bigint,
): Promise<void> {
  await db.$executeRaw`
    INSERT INTO "thread_reads" ("proposalId", "wallet", "lastReadMessageId", "updatedAt")
    VALUES (${proposalId}, ${wallet}, ${messageId}, now())
    ON CONFLICT ("proposalId", "wallet") DO UPDATE
      SET "lastReadMessageId" = GREATEST("thread_reads"."lastReadMessageId", EXCLUDED."lastReadMessageId"),
          "updatedAt" = now()`;
  await db.notification.updateMany({
    where: {
      recipient: wallet,
      type: "message.created",
      proposalId,
      messageId: { lte: messageId },
      readAt: null,
    },
    data: { readAt: new Date() },
  });
}

function toMessageView(
  row: {
    id: bigint;
    jobId: string;
    proposalId: string;
    senderAddress: string;
    body: string;
    createdAt: Date;
  },
  parties: ThreadParties,
): MessageView {
  return {
    id: String(row.id),
    jobId: row.jobId,
    proposalId: row.proposalId,
    senderAddress: getAddress(row.senderAddress),
    side: sameAddress(row.senderAddress, parties.posterAddress) ? "poster" : "agent",
    body: row.body,
    createdAt: row.createdAt.toISOString(),
  };
}
