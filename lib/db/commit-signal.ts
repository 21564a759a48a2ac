import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Db } from "./client";

/**
 * What this process has been told of the database's commits, per database: a generation that
 * moves on every committed marketplace write it learns of, and whether it learns of all of
 * them. Read caches (lib/marketplace/read-cache.ts) keep an answer only while the generation
 * it was read under is still current, so they never serve a state older than the last commit
 * this process was told of.
 *
 * Told by: this process's own writes, as soon as their transaction commits (`runWrite`);
 * other processes' writes, through PostgreSQL's LISTEN/NOTIFY (every write's transaction
 * notifies COMMIT_CHANNEL with `notifyPayloadSql`, its schema and its process; NOTIFY is
 * delivered at commit, never for a rollback; a process skips its own, already noted). PGlite has
 * one process, so its own writes are all there is. While the listener is down, nothing is
 * known, and `informed` says so: caches then read through.
 */
export const COMMIT_CHANNEL = "marketplace_commits";

/** Tells this process's notifications from others' (one per process, whatever the bundles). */
const processTag = globalThis as typeof globalThis & { __commitProcessTag?: string };
const PROCESS_TAG = (processTag.__commitProcessTag ??= randomBytes(8).toString("hex"));

/** SQL for the payload of a write's NOTIFY: its schema, then the writing process. */
export const notifyPayloadSql = `current_schema() || ' ${PROCESS_TAG}'`;

interface Signal {
  generation: number;
  informed: boolean;
}

// On globalThis, like the database itself (lib/db/index.ts): Next.js may evaluate this module
// once per bundle (route handlers, pages, instrumentation), and a write noted in one copy must
// be seen by the caches of every other.
const shared = globalThis as typeof globalThis & { __commitSignals?: WeakMap<Db, Signal> };
const signals = (shared.__commitSignals ??= new WeakMap());

function signalOf(db: Db): Signal {
  let signal = signals.get(db);
  if (!signal) signals.set(db, (signal = { generation: 0, informed: false }));
  return signal;
}

/** The generation to read under, or undefined when this process is not told of every commit. */
export function commitGeneration(db: Db): number | undefined {
  const signal = signalOf(db);
  return signal.informed ? signal.generation : undefined;
}

/** A write committed (here or elsewhere): every answer read before it is old. */
export function noteCommit(db: Db): void {
  signalOf(db).generation += 1;
}

/** The database has no other writer than this process (embedded PGlite). */
export function informedBySelf(db: Db): void {
  signalOf(db).informed = true;
}

/** Reconnecting after a failure: the first wait, doubled on each failure up to the most. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 5_000;
/**
 * A listener hears nothing when no one writes, so a connection lost without a word (a network
 * partition) would go unnoticed: it is asked a trivial query this often, with this long to
 * answer, and replaced when it does not.
 */
const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** The listener's application_name in pg_stat_activity. */
export const LISTENER_NAME = "marketplace-commit-listener";

/**
 * Listens for other processes' commits on PostgreSQL; reconnects after a failure, waiting
 * longer after each failed attempt (up to RECONNECT_MAX_MS), with nothing cached meanwhile.
 * Logs one line when it loses the database and one when it is back. `ready` settles after the
 * first attempt, whatever its outcome, within CONNECT_TIMEOUT_MS.
 */
export function listenForCommits(
  db: Db,
  connectionString: string,
): { ready: Promise<void>; stop(): Promise<void> } {
  const signal = signalOf(db);
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let failures = 0;
  let lostAt: number | undefined;

  const lost = () => {
    // Whatever committed while nobody listened is unknown: forget every answer read so far.
    signal.informed = false;
    signal.generation += 1;
  };
  const connect = async () => {
    const next = new pg.Client({
      connectionString,
      application_name: LISTENER_NAME,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: HEARTBEAT_TIMEOUT_MS,
      keepAlive: true,
    });
    client = next;
    const failed = (error?: unknown) => {
      if (client !== next) return;
      client = undefined;
      clearInterval(heartbeat);
      lost();
      if (lostAt === undefined && !stopped) {
        lostAt = Date.now();
        const why = error instanceof Error ? error.message.split("\n")[0] : "connection ended";
        console.warn(
          `Commit listener lost the database (${why}); read caches off until it is back`,
        );
      }
      // Destroyed, not ended: a connection cut off by the network would never answer an end.
      (
        next as unknown as { connection?: { stream?: { destroy(): void } } }
      ).connection?.stream?.destroy();
      next.end().catch(() => undefined);
      if (stopped) return;
      const wait = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** failures);
      failures += 1;
      retry = setTimeout(() => void connect(), wait);
      retry.unref();
    };
    next.on("error", failed);
    next.on("end", () => failed());
    try {
      await next.connect();
      const { rows } = await next.query<{ schema: string }>("SELECT current_schema() AS schema");
      const schema = rows[0]?.schema;
      const [others, own] = [`${schema} `, `${schema} ${PROCESS_TAG}`];
      next.on("notification", ({ channel, payload }) => {
        if (channel !== COMMIT_CHANNEL || !payload?.startsWith(others) || payload === own) return;
        noteCommit(db);
      });
      await next.query(`LISTEN ${COMMIT_CHANNEL}`);
      if (client !== next || stopped) return;
      // Commits before LISTEN took effect were not heard: start from a new generation.
      signal.generation += 1;
      signal.informed = true;
      failures = 0;
      if (lostAt !== undefined) {
        console.info(`Commit listener is back after ${Math.round((Date.now() - lostAt) / 1000)} s`);
        lostAt = undefined;
      }
      heartbeat = setInterval(() => {
        next.query("SELECT 1").catch((error: unknown) => failed(error));
      }, HEARTBEAT_MS);
      heartbeat.unref();
    } catch (error) {
      failed(error);
    }
  };
  const ready = connect();

  const stop = async () => {
    stopped = true;
    clearTimeout(retry);
    clearInterval(heartbeat);
    const current = client;
    client = undefined;
    lost();
    await current?.end().catch(() => undefined);
  };
  return { ready, stop };
}
