import { type Address, getAddress } from "viem";
import type { Db } from "@/lib/db";
import { WRITE_TRANSACTION } from "@/lib/db/transaction-budget";
import type { Prisma } from "@/lib/generated/prisma/client";
import { isNotificationType } from "@/lib/notifications/recipients";
import { type Notice, writeNotifications } from "@/lib/notifications/write";
import type { EventType } from "@/lib/shared/schemas/events";
import type { EventData } from "@/lib/shared/views";
import { COMMIT_CHANNEL, noteCommit, notifyPayloadSql } from "./commit-signal";

/**
 * The write side of the event feed. A marketplace write runs in `withEvents(db, body)`: what
 * the body announces (`recordEvent`) is written at the end of the same transaction, so an
 * event exists exactly when its write committed.
 *
 * Commit order = id order. A bigserial hands out ids when rows are inserted, not when their
 * transactions commit: with plain inserts, a transaction that took id 7 could commit after
 * one that took id 8, and a reader that had already moved past 8 would never see 7. So the
 * events of a transaction are inserted last, after a transaction-scoped advisory lock
 * (EVENTS_LOCK) that is held until COMMIT or ROLLBACK: the next writer takes its ids only
 * once the previous one is finished, and PostgreSQL makes a commit visible before it releases
 * the transaction's locks. Hence: whoever sees event N sees every committed event below N,
 * and a reader may always continue from the last id it saw (lib/events/feed.ts relies on it).
 * The lock is held only for the INSERT and the COMMIT; the rest of each transaction runs in
 * parallel as before. A rolled-back transaction leaves a hole in the ids that no one waits for.
 */

/**
 * pg_advisory_xact_lock(key1, key2): the two-key form, apart from the migration runner's
 * one-key lock; the second key is the schema's, so that schemas sharing a database (tests,
 * several deployments) do not wait for each other.
 */
export const EVENTS_LOCK_KEY = 1701934196;
const EVENTS_LOCK = `${EVENTS_LOCK_KEY}, hashtext(current_schema())`;

/** What a write announces: the event's type and the ids it concerns. */
export interface EventFact {
  type: EventType;
  jobId: string;
  proposalId?: string;
  settlementId?: string;
  reviewId?: string;
}

type Tx = Prisma.TransactionClient;

const pending = new WeakMap<Tx, EventFact[]>();

/** Runs `body` in a transaction and writes the events it recorded last, in that transaction. */
export async function withEvents<T>(db: Db, body: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db.$transaction(async (tx) => {
      const facts: EventFact[] = [];
      pending.set(tx, facts);
      try {
        const result = await body(tx);
        await writeEvents(tx, facts);
        return result;
      } finally {
        pending.delete(tx);
      }
    }, WRITE_TRANSACTION);
  } finally {
    // Committed (or perhaps committed: a failure can come after COMMIT): this process's read
    // caches must not answer from before it.
    noteCommit(db);
  }
}

/** Announces an event of the running `withEvents` transaction (written when it ends). */
export function recordEvent(tx: Tx, fact: EventFact): void {
  const facts = pending.get(tx);
  if (!facts) {
    throw new Error(
      `event ${fact.type} recorded outside withEvents(): marketplace writes run in runWrite()`,
    );
  }
  facts.push(fact);
}

/**
 * Builds each event's data from the rows as the transaction leaves them, then takes the
 * events lock and inserts them, and the notifications they give (lib/notifications), in the
 * same transaction. Exported for the commit-order test, which holds a transaction open right
 * after this.
 */
export async function writeEvents(tx: Tx, facts: readonly EventFact[]): Promise<void> {
  if (facts.length === 0) return;
  const rows: Prisma.EventCreateManyInput[] = [];
  for (const fact of facts) rows.push(await eventRow(tx, fact));
  // The same statement tells other server processes (LISTEN, lib/events/commit-signal.ts)
  // once this transaction commits; PostgreSQL drops the notification on rollback.
  await tx.$executeRawUnsafe(
    `SELECT pg_advisory_xact_lock(${EVENTS_LOCK}), pg_notify('${COMMIT_CHANNEL}', ${notifyPayloadSql})`,
  );
  const events = await tx.event.createManyAndReturn({
    data: rows,
    select: { id: true, type: true, data: true },
  });
  await writeNotifications(tx, events.flatMap(noticeOf));
}

/** The notification an event gives, if its type notifies anyone. */
function noticeOf(event: { id: bigint; type: string; data: Prisma.JsonValue }): Notice[] {
  if (!isNotificationType(event.type)) return [];
  const data = event.data as unknown as EventData;
  return [
    {
      type: event.type,
      jobId: data.jobId,
      sides: {
        posterAddress: data.posterAddress,
        agentWallets: [data.agentWalletAddress, data.agentOperatorAddress].filter(
          (wallet): wallet is Address => wallet !== undefined,
        ),
      },
      proposalId: data.proposalId,
      reviewId: data.reviewId,
      eventId: event.id,
    },
  ];
}

async function eventRow(tx: Tx, fact: EventFact): Promise<Prisma.EventCreateManyInput> {
  const job = await tx.job.findUniqueOrThrow({
    where: { id: fact.jobId },
    select: {
      status: true,
      category: true,
      posterAddress: true,
      assignedAgentId: true,
      acceptedProposalId: true,
    },
  });
  const data: EventData = {
    jobId: fact.jobId,
    jobStatus: job.status,
    category: job.category,
    posterAddress: checksum(job.posterAddress),
  };
  // Job transitions after acceptance concern the accepted proposal and the assigned agent.
  const proposalId =
    fact.proposalId ?? (fact.type.startsWith("job.") ? job.acceptedProposalId : null) ?? undefined;
  let agentId = job.assignedAgentId ?? undefined;
  if (proposalId) {
    const proposal = await tx.proposal.findUniqueOrThrow({
      where: { id: proposalId },
      select: { status: true, agentId: true },
    });
    data.proposalId = proposalId;
    data.proposalStatus = proposal.status;
    agentId = proposal.agentId;
  }
  if (fact.settlementId) {
    const settlement = await tx.settlement.findUniqueOrThrow({
      where: { id: fact.settlementId },
      select: { status: true, txHash: true },
    });
    data.settlementId = fact.settlementId;
    data.settlementStatus = settlement.status;
    data.txHash = settlement.txHash;
  }
  if (fact.reviewId) {
    const review = await tx.review.findUniqueOrThrow({
      where: { id: fact.reviewId },
      select: { agentId: true },
    });
    data.reviewId = fact.reviewId;
    agentId = review.agentId;
  }
  const actors = new Set<string>([data.posterAddress]);
  if (agentId) {
    const agent = await tx.agent.findUniqueOrThrow({
      where: { id: agentId },
      select: { walletAddress: true, operatorAddress: true },
    });
    data.agentId = agentId;
    data.agentWalletAddress = checksum(agent.walletAddress);
    data.agentOperatorAddress = checksum(agent.operatorAddress);
    actors.add(data.agentWalletAddress).add(data.agentOperatorAddress);
  }
  return {
    type: fact.type,
    jobId: fact.jobId,
    category: job.category,
    actors: [...actors],
    data: data as unknown as Prisma.InputJsonValue,
  };
}

const checksum = (address: string) => getAddress(address) as Address;
