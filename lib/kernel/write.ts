import type { Db } from "@/lib/db";
import { WRITE_TRANSACTION } from "@/lib/db/transaction-budget";
import type { Prisma } from "@/lib/generated/prisma/client";
import { eventRows, type KnownFacts, NOTHING_ELSE, noticeOf, readFacts } from "./event-rows";
import { isNotificationType } from "./notice-recipients";
import { writeNotifications } from "./notices";
import type { EventType } from "@/lib/shared/schemas/events";
import { COMMIT_CHANNEL, noteCommit, notifyPayloadSql } from "@/lib/db/commit-signal";

/**
 * The write side of the event feed. A marketplace write runs in `runWrite(db, body)`: what
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
export async function runWrite<T>(db: Db, body: (tx: Tx) => Promise<T>): Promise<T> {
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

/** Announces an event of the running `runWrite` transaction (written when it ends). */
export function recordEvent(tx: Tx, fact: EventFact): void {
  const facts = pending.get(tx);
  if (!facts) {
    throw new Error(
      `event ${fact.type} recorded outside runWrite(): marketplace writes run in runWrite()`,
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

/**
 * Runs a write as one statement: the write, the events lock, the events and the NOTIFY. One
 * round-trip, and the lock held only inside the database, never while the database waits for
 * this process, so concurrent writers queue behind it for microseconds (a job's creation; a
 * write that reads before it writes, or whose events notify anyone, runs in `runWrite`).
 */
export async function writeInOneStatement<Row>(db: Db, write: OneStatementWrite): Promise<Row[]> {
  const facts = write.events.map((event) => event.fact);
  const notifying = facts.find((fact) => isNotificationType(fact.type));
  if (notifying) throw new Error(`event ${notifying.type} notifies: write it in runWrite()`);
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
