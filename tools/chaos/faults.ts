// The faults and their schedule. Each fault takes a dependency away for `down` seconds, brings
// it back, and is measured from then: its window (start to back, plus a grace) is when a 503 with
// Retry-After is the right answer; its recovery is how long after it came back every app server
// answers a probe again (GET /api/ready when the server has it, else a request that needs the
// dependency), with no restart of the app.
import type { FaultName } from "./options";
import type { Stack } from "./stack";

/** After a dependency is back, 503s are still expected for this long (pools reconnecting). */
export const GRACE_MS = 5_000;
/** How long a probe waits for every server to answer again after a fault. */
const RECOVERY_LIMIT_MS = 120_000;

export interface FaultWindow {
  name: FaultName;
  /** Milliseconds since the run's start. */
  start: number;
  /** When the dependency was back (started again, healed). */
  back?: number;
  /** Seconds from `back` until every app server answered the probe; undefined: never. */
  recoverySeconds?: number;
  /** The server it took down (app-kill): connection failures to it are expected. */
  server?: string;
  /** The fault itself failed (a restart that did not come up). */
  error?: string;
}

export const windowEnd = (window: FaultWindow, now: number) => (window.back ?? now) + GRACE_MS;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes the dependency down, waits, brings it back; returns the server it took down, if any. */
async function inject(stack: Stack, name: FaultName, downMs: number): Promise<string | undefined> {
  switch (name) {
    case "postgres-fast":
    case "postgres-immediate":
      await stack.postgres.stop(name === "postgres-fast" ? "fast" : "immediate");
      await sleep(downMs);
      await stack.postgres.start();
      return;
    case "chain-restart":
      await stack.chain.stop("SIGTERM");
      await sleep(downMs);
      await stack.chain.start();
      return;
    case "facilitator-kill":
      await stack.facilitator.kill();
      await sleep(downMs);
      await stack.facilitator.start();
      return;
    case "app-kill": {
      const app = stack.apps.at(-1)!;
      await app.kill();
      await sleep(downMs);
      await app.start();
      return app.name;
    }
    case "redis-stop":
      await stack.redis.stop("SIGTERM");
      await sleep(downMs);
      await stack.redis.start();
      return;
    case "db-partition":
      stack.dbProxy.partition("drop");
      await sleep(downMs);
      stack.dbProxy.heal();
      return;
  }
}

/** Whether the servers have GET /api/ready (another change adds it); else the fallbacks. */
export async function hasReadyEndpoint(url: string): Promise<boolean> {
  const response = await fetch(`${url}/api/ready`, { signal: AbortSignal.timeout(10_000) });
  await response.arrayBuffer();
  return response.status !== 404;
}

/**
 * The probe for a fault: /api/ready where it exists; else a nonce (the auth rate limit in Redis,
 * a row in PostgreSQL) for the database, Redis and a killed server, and the event feed for the
 * chain and the facilitator, which no cheap request needs (their recovery shows in the load's
 * payments instead).
 */
function probePath(name: FaultName, ready: boolean): string {
  if (ready) return "/api/ready";
  if (name === "chain-restart" || name === "facilitator-kill") return "/api/v1/events?limit=1";
  return "/api/auth/nonce";
}

async function probe(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

export async function runFault(
  stack: Stack,
  name: FaultName,
  downMs: number,
  now: () => number,
  ready: boolean,
  log: (line: string) => void,
): Promise<FaultWindow> {
  const window: FaultWindow = { name, start: now() };
  log(`fault ${name}: down for ${downMs / 1000} s`);
  try {
    window.server = await inject(stack, name, downMs);
  } catch (error) {
    window.error = error instanceof Error ? error.message.split("\n")[0] : String(error);
    log(`fault ${name}: could not be injected or undone: ${window.error}`);
  }
  window.back = now();
  const path = probePath(name, ready);
  const deadline = Date.now() + RECOVERY_LIMIT_MS;
  while (Date.now() < deadline) {
    const answers = await Promise.all(stack.apps.map((app) => probe(app.url + path)));
    if (answers.every(Boolean)) {
      window.recoverySeconds = (now() - window.back) / 1000;
      break;
    }
    await sleep(250);
  }
  log(
    `fault ${name}: back; ${
      window.recoverySeconds === undefined
        ? `the servers did not answer ${path} within ${RECOVERY_LIMIT_MS / 1000} s`
        : `every server answered ${path} after ${window.recoverySeconds.toFixed(1)} s`
    }`,
  );
  return window;
}

/**
 * When each fault starts (ms after the load's start): after a warm-up, spread over the run,
 * each moved by up to a fifth of its slot by the seed.
 */
export function schedule(
  faults: FaultName[],
  durationMs: number,
  rand: () => number,
): { name: FaultName; at: number }[] {
  if (faults.length === 0) return [];
  const warmUp = Math.min(30_000, durationMs * 0.1);
  const slot = (durationMs - warmUp) / faults.length;
  return faults.map((name, i) => ({
    name,
    at: Math.round(warmUp + i * slot + rand() * slot * 0.2),
  }));
}
