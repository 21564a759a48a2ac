import "server-only";
import packageJson from "@/package.json";
import { getDb } from "@/lib/db";
import { getConfig } from "@/lib/platform/config";
import { getChainClient } from "@/lib/payments/chain/client";
import { getSettlementNetwork } from "@/lib/payments/chain/network";
import { getFacilitator } from "@/lib/payments/facilitator/current";
import type { SelfHostedFacilitator } from "@/lib/payments/facilitator/facilitators";
import type { HealthView } from "@/lib/shared/view-types";
import {
  chainProbe,
  databaseProbe,
  gasKeysProbe,
  httpFacilitatorProbe,
  type Probe,
  type Readiness,
  redisProbe,
  runChecks,
} from "./probes";
import { getRateLimitStore, RedisRateLimitStore } from "./rate-limit";

/**
 * The two probes a load balancer asks (docs/operations.md, Health and readiness):
 * liveness (`GET /api/health`: this process answers; nothing else is touched) and readiness
 * (`GET /api/ready`: every dependency answers, lib/api/probes.ts).
 */

/** Each readiness check's own timeout. */
export const READINESS_TIMEOUT_MS = 1_000;
/** A readiness answer is reused this long: probes in a burst cost the dependencies one round. */
export const READINESS_REUSE_MS = 1_000;
/** `Retry-After` of a 503 not_ready. */
export const READINESS_RETRY_AFTER_SECONDS = 5;

export function liveness(): HealthView {
  return {
    status: "ok",
    uptimeSeconds: Math.floor(process.uptime()),
    version: packageJson.version,
  };
}

/**
 * What this server depends on, as configured: the database, the settlement chain's RPC, the
 * facilitator (in this process: its gas keys over the RPC; else its HTTP service), and Redis
 * when REDIS_URL is set. Built once per process: each probe keeps its own run in flight.
 */
export function configuredProbes(): readonly Probe[] {
  const cache = globalThis as typeof globalThis & { __readinessProbes?: readonly Probe[] };
  cache.__readinessProbes ??= buildProbes();
  return cache.__readinessProbes;
}

function buildProbes(): Probe[] {
  const network = getSettlementNetwork();
  const probes = [
    databaseProbe(getDb),
    chainProbe(getChainClient),
    network.facilitator.kind === "http"
      ? httpFacilitatorProbe(getFacilitator, network.network)
      : gasKeysProbe(
          getChainClient,
          () => (getFacilitator() as SelfHostedFacilitator).signerAddresses,
        ),
  ];
  if (getConfig().REDIS_URL) {
    probes.push(
      redisProbe(() => {
        const store = getRateLimitStore();
        if (!(store instanceof RedisRateLimitStore)) throw new Error("no Redis store");
        return store;
      }),
    );
  }
  return probes;
}

/** The process's readiness: one run of every check, shared by the requests within REUSE_MS. */
export function currentReadiness(now = Date.now()): Promise<Readiness> {
  const state = globalThis as typeof globalThis & {
    __readiness?: { at: number; result: Promise<Readiness> };
  };
  const last = state.__readiness;
  if (last && now - last.at < READINESS_REUSE_MS) return last.result;
  const result = runChecks(configuredProbes(), READINESS_TIMEOUT_MS);
  state.__readiness = { at: now, result };
  return result;
}
