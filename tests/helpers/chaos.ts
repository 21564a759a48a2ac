// What the chaos suites (tests/http/chaos-*.test.ts) share: every request of a burst recorded
// with when it was sent and answered, the outage's window, and the rules every answer must
// keep while a dependency is down and after it is back (docs/operations.md, "When a
// dependency fails").
import pg from "pg";
import { expect } from "vitest";
import { type PostgresCluster, startPostgresCluster } from "@/dev/postgres-cluster";
import { migrateTarget } from "@/lib/db/setup";
import { resolveDbTarget } from "@/lib/db/target";

export interface Answer {
  what: string;
  sentAt: number;
  answeredAt: number;
  /** 0: no HTTP answer at all (the connection failed). */
  status: number;
  code?: string;
  retryAfter: string | null;
  /** A created resource's id, for the rows check. */
  id?: string;
}

/** Every answer of a burst, in the order they came. */
export class Recorder {
  readonly answers: Answer[] = [];

  /** Sends, records and returns the answer (its JSON body parsed when there is one). */
  async send(
    what: string,
    request: () => Promise<Response>,
  ): Promise<{ answer: Answer; body: any }> {
    const sentAt = Date.now();
    let answer: Answer;
    let body: any;
    try {
      const response = await request();
      const text = await response.text();
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      answer = {
        what,
        sentAt,
        answeredAt: Date.now(),
        status: response.status,
        code: body?.code,
        retryAfter: response.headers.get("retry-after"),
        id: typeof body?.data?.id === "string" ? body.data.id : undefined,
      };
    } catch {
      answer = { what, sentAt, answeredAt: Date.now(), status: 0, retryAfter: null };
    }
    this.answers.push(answer);
    return { answer, body };
  }

  of(what: string): Answer[] {
    return this.answers.filter((answer) => answer.what === what);
  }
}

/** When the dependency went down and when it was back (answering again). */
export interface OutageWindow {
  downAt: number;
  upAt: number;
}

/**
 * The rules for every answer of a burst around one outage:
 * - a success, or a 503 with Retry-After and a dependency code, or one of `alsoAllowed`
 *   (e.g. settle's `409 settlement_pending`): never a 500 or a dropped connection;
 * - a 503 only for a request in flight while the dependency was down: sent before it was back
 *   (plus `graceMs`, for a request that was already waiting) and answered after it went down.
 */
export function expectOutageAnswers(
  answers: Answer[],
  outage: OutageWindow,
  options: { graceMs: number; alsoAllowed?: (answer: Answer) => boolean },
): void {
  const wrong = answers.filter((answer) => {
    if (answer.status >= 200 && answer.status < 300) return false;
    if (options.alsoAllowed?.(answer)) return false;
    if (answer.status !== 503) return true;
    if (!answer.retryAfter || !/^\d+$/.test(answer.retryAfter)) return true;
    if (!["unavailable", "server_busy", "facilitator_unavailable"].includes(answer.code ?? "")) {
      return true;
    }
    return answer.answeredAt < outage.downAt || answer.sentAt > outage.upAt + options.graceMs;
  });
  expect(
    wrong.map((answer) => ({
      ...answer,
      sentAfterDown: answer.sentAt - outage.downAt,
      sentAfterUp: answer.sentAt - outage.upAt,
    })),
    "answers outside the rules (see docs/operations.md, When a dependency fails)",
  ).toEqual([]);
}

/** One line per kind of request: how many of each status (and code), for the test's log. */
export function summarize(recorder: Recorder, outage: OutageWindow): string {
  const counts = new Map<string, number>();
  for (const answer of recorder.answers) {
    const key = `${answer.what} ${answer.status}${answer.code ? ` ${answer.code}` : ""}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const lines = [...counts].sort().map(([key, count]) => `  ${key}: ${count}`);
  const down = Math.round((outage.upAt - outage.downAt) / 100) / 10;
  return [`burst around an outage of ${down} s:`, ...lines].join("\n");
}

/** A private PostgreSQL cluster (dev/postgres-cluster.ts) with a migrated `market` database. */
export async function startMigratedCluster(): Promise<{
  cluster: PostgresCluster;
  databaseUrl: string;
}> {
  const cluster = await startPostgresCluster();
  try {
    await adminQuery(cluster.url(), "CREATE DATABASE market");
    const databaseUrl = cluster.url("market");
    await migrateTarget(resolveDbTarget({ DATABASE_URL: databaseUrl }));
    return { cluster, databaseUrl };
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
}

/** One query on a fresh connection (the test's own, never the server's pool). */
export async function adminQuery<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** Polls `check` until it holds (or throws after `timeoutMs`, naming `what`). */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits as a client told Retry-After would, but at most `capMs` (tests keep moving). */
export function retryPause(answer: Answer, capMs = 1_000): Promise<unknown> {
  const seconds = Number(answer.retryAfter ?? "1");
  return pause(Math.min(capMs, Number.isFinite(seconds) ? seconds * 1000 : capMs));
}
