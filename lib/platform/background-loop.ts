// The server's background loops (the settlement reconciler, the webhook worker) run on a timer
// whatever happens around them: a pass that throws is logged and the next one comes. While a
// dependency is down, or the database cancels their statements for running too long (it is
// overloaded: retrying at once would add to the load), the passes back off and the log gets one
// line when the trouble starts and one when a pass succeeds again, instead of a stack every tick.
import { errorForLog } from "./redact";
import { describeUnavailable, isStatementCancelled, isUnavailableError } from "./unavailable";

/** The longest wait between passes while a dependency is down (or the interval, if longer). */
export const OUTAGE_BACKOFF_MAX_MS = 5_000;

export interface LoopState {
  failures: number;
  /** When the current outage was first seen; undefined while passes succeed. */
  outageSince?: number;
  /** No pass before this time (backing off). */
  nextRunAt: number;
}

/**
 * What one pass's outcome does to the loop: the next pass's earliest time, and the line to log
 * (undefined: nothing to say). Pure, for tests; startBackgroundLoop applies it.
 */
export function afterPass(
  name: string,
  state: LoopState,
  intervalMs: number,
  error: unknown,
  now: number,
): { state: LoopState; log?: { level: "info" | "warn" | "error"; line: string } } {
  if (error === undefined) {
    if (state.outageSince === undefined) return { state: { failures: 0, nextRunAt: now } };
    const seconds = Math.round((now - state.outageSince) / 1000);
    return {
      state: { failures: 0, nextRunAt: now },
      log: {
        level: "info",
        line: `${name}: running again (a dependency was down or too slow for ${seconds} s)`,
      },
    };
  }
  const cancelled = isStatementCancelled(error);
  if (!cancelled && !isUnavailableError(error)) {
    return {
      state: { ...state, nextRunAt: now },
      log: { level: "error", line: `${name}: ${errorForLog(error)}` },
    };
  }
  const failures = state.failures + 1;
  const waitMs = Math.min(
    Math.max(OUTAGE_BACKOFF_MAX_MS, intervalMs),
    intervalMs * 2 ** (failures - 1),
  );
  const next: LoopState = {
    failures,
    outageSince: state.outageSince ?? now,
    nextRunAt: now + waitMs,
  };
  if (state.outageSince !== undefined) return { state: next };
  return {
    state: next,
    log: {
      level: "warn",
      line: cancelled
        ? `${name}: the database cancelled a statement that ran too long (${describeUnavailable(error)}); retrying with backoff`
        : `${name}: a dependency is unavailable (${describeUnavailable(error)}); retrying with backoff`,
    },
  };
}

/**
 * Runs `pass` every `intervalMs` (an unref'd timer: it never keeps the process alive), never
 * two at once, backing off while a dependency is down. Returns the timer.
 */
export function startBackgroundLoop(
  name: string,
  intervalMs: number,
  pass: () => Promise<unknown>,
): NodeJS.Timeout {
  let state: LoopState = { failures: 0, nextRunAt: 0 };
  let running = false;
  const timer = setInterval(async () => {
    if (running || Date.now() < state.nextRunAt) return;
    running = true;
    let failure: unknown;
    try {
      await pass();
    } catch (error) {
      failure = error ?? new Error("a pass failed with no error");
    } finally {
      const outcome = afterPass(name, state, intervalMs, failure, Date.now());
      state = outcome.state;
      if (outcome.log) console[outcome.log.level](outcome.log.line);
      running = false;
    }
  }, intervalMs);
  timer.unref();
  return timer;
}
