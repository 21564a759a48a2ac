import "server-only";
import type { FacilitatorClient } from "@x402/core/server";
import type { Address, PublicClient } from "viem";
import type { Db } from "@/lib/db";
import { errorSummary } from "@/lib/platform/redact";
import type { ReadinessCheckView } from "@/lib/shared/view-types";
import type { RedisRateLimitStore } from "./rate-limit";

/**
 * Readiness checks: each dependency asked one cheap question, all at once, each within its own
 * timeout. What a check answers publicly is a fixed sentence (never the error itself, which
 * may name a host, a URL with a key in it, or a stack); the cause goes to the log, redacted,
 * when the check changes state.
 */

export type CheckName = ReadinessCheckView["name"];

export interface Probe {
  name: CheckName;
  /** The dependency in the public sentence: "the database did not answer". */
  what: string;
  /** Resolves when the dependency answered as it should. */
  run(): Promise<void>;
}

/** A failure whose message is safe to show (the facilitator answered, but not for us). */
export class ProbeFailure extends Error {
  override name = "ProbeFailure";
}

class ProbeTimeout extends Error {
  override name = "ProbeTimeout";
}

export interface Readiness {
  ready: boolean;
  checks: ReadinessCheckView[];
}

/** Every probe at once; ready when all answered within `timeoutMs` each. */
export async function runChecks(probes: readonly Probe[], timeoutMs: number): Promise<Readiness> {
  const checks = await Promise.all(probes.map((probe) => runCheck(probe, timeoutMs)));
  return { ready: checks.every((check) => check.ok), checks };
}

async function runCheck(probe: Probe, timeoutMs: number): Promise<ReadinessCheckView> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout()), timeoutMs);
  });
  try {
    await Promise.race([probe.run(), timeout]);
    noteState(probe, undefined);
    return { name: probe.name, ok: true, latencyMs: elapsed(started) };
  } catch (error) {
    noteState(probe, error);
    return {
      name: probe.name,
      ok: false,
      latencyMs: elapsed(started),
      error: reason(probe, error, timeoutMs),
    };
  } finally {
    clearTimeout(timer);
  }
}

const elapsed = (started: number) => Math.max(0, Math.round(performance.now() - started));

function reason(probe: Probe, error: unknown, timeoutMs: number): string {
  if (error instanceof ProbeTimeout) return `${probe.what} did not answer within ${timeoutMs} ms`;
  if (error instanceof ProbeFailure) return error.message;
  return `${probe.what} did not answer`;
}

/** Last state per check in this process: a change is logged once, not every probe. */
const lastOk = new Map<CheckName, boolean>();

function noteState(probe: Probe, error: unknown) {
  const ok = error === undefined;
  const before = lastOk.get(probe.name);
  lastOk.set(probe.name, ok);
  if (before === ok || (before === undefined && ok)) return;
  if (ok) console.info(`Readiness: ${probe.name} answers again`);
  else console.warn(`Readiness: ${probe.name} is down (${causeOf(error)})`);
}

/** For the log: the first line, redacted; a driver's bare code when it says nothing else. */
function causeOf(error: unknown): string {
  if (error instanceof ProbeTimeout) return "no answer in time";
  const summary = errorSummary(error);
  if (summary) return summary;
  const nested = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | null;
  const inner = nested?.cause ?? nested?.errors?.[0];
  if (inner && inner !== error) return causeOf(inner);
  return typeof nested?.code === "string" ? nested.code : "no reason given";
}

/**
 * At most one run of `run` in flight: a check that still hangs (a blackholed connection) is
 * awaited again by the next probe, never started a second time, so a dead dependency cannot
 * pile up connections or requests however often the load balancer asks.
 */
export function singleFlight(run: () => Promise<void>): () => Promise<void> {
  let pending: Promise<void> | undefined;
  return () => {
    pending ??= run().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

/** `SELECT 1` through the app's own Prisma client (its pool, or the embedded database). */
export function databaseProbe(db: () => Promise<Db>): Probe {
  return {
    name: "database",
    what: "the database",
    run: singleFlight(async () => {
      await (
        await db()
      ).$queryRaw`SELECT 1`;
    }),
  };
}

/** `eth_blockNumber` through the app's chain client (never its cached answer). */
export function chainProbe(client: () => PublicClient): Probe {
  return {
    name: "chain",
    what: "the chain RPC",
    run: singleFlight(async () => {
      await client().getBlockNumber({ cacheTime: 0 });
    }),
  };
}

/**
 * A facilitator over HTTP (`npm run facilitator`, or a hosted one): its `/supported` answers,
 * and lists the `exact` scheme on our network.
 */
export function httpFacilitatorProbe(client: () => FacilitatorClient, network: string): Probe {
  return {
    name: "facilitator",
    what: "the facilitator",
    run: singleFlight(async () => {
      const supported = await client().getSupported();
      const settles = supported.kinds.some(
        (kind) => kind.scheme === "exact" && kind.network === network,
      );
      if (!settles) throw new ProbeFailure("the facilitator does not settle this network");
    }),
  };
}

/**
 * The facilitator in this process: the settlement RPC reads its gas keys' balances (what it
 * needs before it can send). A low balance is not "down": it is logged by the balance watch
 * (FACILITATOR_MIN_BALANCE_ETH), and would take every server out of rotation at once.
 */
export function gasKeysProbe(client: () => PublicClient, addresses: () => Address[]): Probe {
  return {
    name: "facilitator",
    what: "the facilitator's RPC",
    run: singleFlight(async () => {
      await Promise.all(addresses().map((address) => client().getBalance({ address })));
    }),
  };
}

/** PING through the rate limiter's own Redis client. */
export function redisProbe(store: () => RedisRateLimitStore): Probe {
  return {
    name: "redis",
    what: "Redis",
    run: singleFlight(() => store().ping()),
  };
}
