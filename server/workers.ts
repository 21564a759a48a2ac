// How many worker processes `npm start` runs (WEB_CONCURRENCY): one per core unless told, and
// always one on the embedded database, which belongs to the process that opened it (PGlite).
// Every worker has its own read cache, told of the others' writes by PostgreSQL's
// LISTEN/NOTIFY (lib/db/commit-signal.ts), as separate servers are.
import os from "node:os";

export interface WorkerCount {
  workers: number;
  /** The startup log's line: how many, and why that many. */
  why: string;
}

/** The most workers one supervisor runs (WEB_CONCURRENCY's upper bound). */
export const MAX_WORKERS = 64;

export function workerCount(
  config: { WEB_CONCURRENCY?: number; DATABASE_URL?: string },
  cores: number = os.availableParallelism(),
): WorkerCount {
  const asked = config.WEB_CONCURRENCY;
  if (!config.DATABASE_URL) {
    // A platform may set WEB_CONCURRENCY for every app it runs: one worker, said out loud,
    // rather than a server that does not start.
    const ignored = asked !== undefined && asked > 1 ? ` (WEB_CONCURRENCY=${asked} ignored)` : "";
    return {
      workers: 1,
      why:
        `1 worker${ignored}: the embedded database (PGlite) belongs to one process; ` +
        "set DATABASE_URL (PostgreSQL) to run one per core",
    };
  }
  if (asked !== undefined) return { workers: asked, why: `${plural(asked)} (WEB_CONCURRENCY)` };
  const workers = Math.max(1, Math.min(MAX_WORKERS, cores));
  return { workers, why: `${plural(workers)}, one per core (WEB_CONCURRENCY unset)` };
}

const plural = (n: number) => `${n} worker${n === 1 ? "" : "s"}`;
