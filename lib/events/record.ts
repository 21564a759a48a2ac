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
 * The lock is held from the INSERT to the COMMIT (with the notifications the events give);
 * the rest of each transaction runs in parallel as before. A write that is a single statement
 * (`writeInOneStatement`, a job's creation) takes the lock inside that statement, its own
 * transaction, and holds it only while the database runs it: its inserts and their foreign-key
 * checks (FOR KEY SHARE on the rows referred to; no transaction may hold those FOR UPDATE
 * across a round-trip, lib/events/webhooks.ts). Each event's createdAt is read under the lock,
 * so it follows id order too. A rolled-back transaction leaves a hole in the ids that no one
 * waits for.
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
 * Builds each event's data from the rows as the transaction leaves them (one statement for
 * all of a write's events), then takes the events lock, inserts them and tells other
 * processes, in one more statement; then the notifications they give (lib/notifications), in
 * the same transaction. Exported for the commit-order test, which holds a transaction open
 * right after this.
 */
export async function writeEvents(tx: Tx, facts: readonly EventFact[]): Promise<void> {
  if (facts.length === 0) return;
  const rows = eventRows(facts, await readFacts(tx, facts));
  const events = await tx.$queryRawUnsafe<{ id: bigint; type: string; data: Prisma.JsonValue }[]>(
    `WITH ${eventInsertCtes(1)} SELECT "id", "type", "data" FROM "inserted_events"`,
    JSON.stringify(rows),
  );
  await writeNotifications(tx, events.flatMap(noticeOf));
}

/**
 * The CTEs that take the events lock, insert the events (the JSON of `eventRows` in parameter
 * `$param`) and tell other processes, for the WITH list of a statement; the inserted rows are
 * `"inserted_events"` ("id", "type", "data").
 *
 * The lock is taken before the INSERT draws any id: the rows come from a join with the lock's
 * own (materialized) row, so none exists until the lock is held. The NOTIFY reaches the
 * listeners once the transaction commits; PostgreSQL drops it on rollback.
 */
function eventInsertCtes(param: number): string {
  return `"events_lock" AS MATERIALIZED (
       SELECT pg_advisory_xact_lock(${EVENTS_LOCK}), pg_notify('${COMMIT_CHANNEL}', ${notifyPayloadSql})
     ),
     "inserted_events" AS (
       INSERT INTO "events" ("type", "jobId", "category", "actors", "data", "createdAt")
       SELECT e."type", e."jobId", e."category"::"Category", e."actors", e."data",
         clock_timestamp() AT TIME ZONE 'UTC'
       FROM "events_lock", jsonb_to_recordset($${param}::jsonb) AS e(
         "i" int, "type" text, "jobId" text, "category" text, "actors" text[], "data" jsonb
       )
       ORDER BY e."i"
       RETURNING "id", "type", "data"
     )`;
}

/**
 * A write of one statement whose events' data it knows in full, and whose events give no
 * notification (lib/notifications: those are written after the events, from their ids).
 */
export interface OneStatementWrite {
  /** CTEs (`name AS (...)`) that do the write, before the events' own in the WITH list. */
  ctes: string;
  /** The statement's final SELECT, over those CTEs. */
  select: string;
  values: unknown[];
  /**
   * The events, with the rows their data is made of as the write leaves them: the job's
   * fields, and whatever else the event concerns (what is left out concerns it not).
   */
  events: readonly { fact: EventFact; row: KnownFacts }[];
}

/** What a fact row says beside its job. */
type RelatedFacts = Omit<FactRow, "i" | "status" | "category" | "posterAddress">;
type KnownFacts = Pick<FactRow, "status" | "category" | "posterAddress"> & Partial<RelatedFacts>;

/** A fact row with nothing but its job: no proposal, settlement, review or agent. */
const NOTHING_ELSE: RelatedFacts = {
  proposalId: null,
  proposalStatus: null,
  settlementId: null,
  settlementStatus: null,
  txHash: null,
  reviewId: null,
  agentId: null,
  walletAddress: null,
  operatorAddress: null,
};

/**
 * Runs a write as one statement: the write, the events lock, the events and the NOTIFY. One
 * round-trip, and the lock held only inside the database, never while the database waits for
 * this process, so concurrent writers queue behind it for microseconds (a job's creation; a
 * write that reads before it writes, or whose events notify anyone, runs in `withEvents`).
 */
export async function writeInOneStatement<Row>(db: Db, write: OneStatementWrite): Promise<Row[]> {
  const facts = write.events.map((event) => event.fact);
  const notifying = facts.find((fact) => isNotificationType(fact.type));
  if (notifying) throw new Error(`event ${notifying.type} notifies: write it in withEvents()`);
  const rows = eventRows(
    facts,
    write.events.map((event, i) => ({ ...NOTHING_ELSE, ...event.row, i })),
  );
  try {
    return await db.$queryRawUnsafe<Row[]>(
      `WITH ${write.ctes}, ${eventInsertCtes(write.values.length + 1)} ${write.select}`,
      ...write.values,
      JSON.stringify(rows),
    );
  } finally {
    noteCommit(db);
  }
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

/** What an event's data is made of, read for every fact of a write in one statement. */
export interface FactRow {
  /** The fact's index in the write's list. */
  i: number;
  status: string;
  category: string;
  posterAddress: string;
  proposalId: string | null;
  proposalStatus: string | null;
  settlementId: string | null;
  settlementStatus: string | null;
  txHash: string | null;
  reviewId: string | null;
  agentId: string | null;
  walletAddress: string | null;
  operatorAddress: string | null;
}

/**
 * The job of each fact; the proposal it names (a job transition after acceptance: the
 * accepted one); its settlement and review; and the agent it concerns: the review's, else the
 * proposal's, else the job's assigned agent. Each row named must exist (the job's accepted
 * proposal has no foreign key).
 */
async function readFacts(tx: Tx, facts: readonly EventFact[]): Promise<FactRow[]> {
  const named = facts.map((fact, i) => ({
    i,
    type: fact.type,
    jobId: fact.jobId,
    proposalId: fact.proposalId ?? null,
    settlementId: fact.settlementId ?? null,
    reviewId: fact.reviewId ?? null,
  }));
  const rows = await tx.$queryRawUnsafe<(FactRow & { namedProposalId: string | null })[]>(
    `SELECT f."i", j."status"::text AS "status", j."category"::text AS "category",
       j."posterAddress", x."proposalId" AS "namedProposalId",
       p."id" AS "proposalId", p."status"::text AS "proposalStatus",
       s."id" AS "settlementId", s."status"::text AS "settlementStatus", s."txHash",
       r."id" AS "reviewId", a."id" AS "agentId", a."walletAddress", a."operatorAddress"
     FROM jsonb_to_recordset($1::jsonb) AS f(
       "i" int, "type" text, "jobId" text, "proposalId" text, "settlementId" text,
       "reviewId" text
     )
     JOIN "jobs" j ON j."id" = f."jobId"
     CROSS JOIN LATERAL (SELECT COALESCE(f."proposalId",
       CASE WHEN f."type" LIKE 'job.%' THEN j."acceptedProposalId" END) AS "proposalId") x
     LEFT JOIN "proposals" p ON p."id" = x."proposalId"
     LEFT JOIN "settlements" s ON s."id" = f."settlementId"
     LEFT JOIN "reviews" r ON r."id" = f."reviewId"
     LEFT JOIN "agents" a ON a."id" = COALESCE(r."agentId", p."agentId", j."assignedAgentId")
     ORDER BY f."i"`,
    JSON.stringify(named),
  );
  facts.forEach((fact, index) => {
    const row = rows[index];
    const missing =
      !row || row.i !== index
        ? `job ${fact.jobId}`
        : row.namedProposalId && !row.proposalId
          ? `proposal ${row.namedProposalId}`
          : fact.settlementId && !row.settlementId
            ? `settlement ${fact.settlementId}`
            : fact.reviewId && !row.reviewId
              ? `review ${fact.reviewId}`
              : undefined;
    if (missing) throw new Error(`event ${fact.type}: ${missing} not found`);
  });
  return rows;
}

/** Each event's row: ids and statuses, the addresses checksummed, its actors for the feed. */
function eventRows(facts: readonly EventFact[], rows: readonly FactRow[]) {
  return facts.map((fact, index) => {
    const row = rows[index]!;
    const data: EventData = {
      jobId: fact.jobId,
      jobStatus: row.status as EventData["jobStatus"],
      category: row.category as EventData["category"],
      posterAddress: checksum(row.posterAddress),
    };
    if (row.proposalId) {
      data.proposalId = row.proposalId;
      data.proposalStatus = row.proposalStatus as EventData["proposalStatus"];
    }
    if (row.settlementId) {
      data.settlementId = row.settlementId;
      data.settlementStatus = row.settlementStatus as EventData["settlementStatus"];
      data.txHash = row.txHash;
    }
    if (row.reviewId) data.reviewId = row.reviewId;
    const actors = new Set<string>([data.posterAddress]);
    if (row.agentId && row.walletAddress && row.operatorAddress) {
      data.agentId = row.agentId;
      data.agentWalletAddress = checksum(row.walletAddress);
      data.agentOperatorAddress = checksum(row.operatorAddress);
      actors.add(data.agentWalletAddress).add(data.agentOperatorAddress);
    }
    return {
      i: index,
      type: fact.type,
      jobId: fact.jobId,
      category: row.category,
      actors: [...actors],
      data,
    };
  });
}

const checksum = (address: string) => getAddress(address) as Address;
