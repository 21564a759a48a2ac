import "server-only";
import type { Address } from "viem";
import { addressSubject, requestClientAddress } from "@/lib/platform/client-address";
import { getConfig } from "@/lib/platform/config";
import { DomainError, UNAVAILABLE_RETRY_AFTER_SECONDS } from "@/lib/platform/errors";
import { errorForLog } from "@/lib/platform/redact";
import { describeUnavailable, isUnavailableError, logOutage } from "@/lib/platform/unavailable";
import { checkRateLimit, getRateLimitStore, getReadLimiter } from "./rate-limit";

// Counting a request against its rate limit (lib/api/rate-limit.ts holds the counters).

export type RateLimitBucket = "read" | "write" | "auth";

const LIMIT_PER_MINUTE = {
  read: "RATE_LIMIT_READS_PER_MINUTE",
  write: "RATE_LIMIT_WRITES_PER_MINUTE",
  auth: "RATE_LIMIT_AUTH_PER_MINUTE",
} as const satisfies Record<RateLimitBucket, keyof ReturnType<typeof getConfig>>;

/**
 * Counts the request against its bucket, per client address and per wallet (429 beyond).
 * Writes and sign-ins wait for the shared store; reads are decided in memory and added to it
 * each second (lib/api/rate-limit.ts, LocalFirstLimiter), so a read costs no round-trip.
 */
export async function enforceRateLimit(req: Request, bucket: RateLimitBucket, wallet?: Address) {
  const keys = [`${bucket}:ip:${addressSubject(requestClientAddress(req))}`];
  if (wallet) keys.push(`${bucket}:wallet:${wallet}`);
  await enforceLimit(bucket, keys);
}

/**
 * Counts a request against `wallet`'s share of the bucket alone, for a wallet known only from
 * what the request carries (a payment's signer: settle attempts per payer are limited like
 * writes, so nobody makes the facilitator verify without end).
 */
export function enforceWalletRateLimit(bucket: RateLimitBucket, wallet: Address) {
  return enforceLimit(bucket, [`${bucket}:wallet:${wallet}`]);
}

async function enforceLimit(bucket: RateLimitBucket, keys: string[]) {
  const limit = getConfig()[LIMIT_PER_MINUTE[bucket]];
  let decision;
  try {
    decision =
      bucket === "read"
        ? getReadLimiter().check(keys, limit)
        : await checkRateLimit(getRateLimitStore(), keys, limit);
  } catch (error) {
    // Never skip the limit silently: without its store the request waits for another day.
    if (isUnavailableError(error)) {
      logOutage("rate limiting", `${describeUnavailable(error)}; answered 503`);
    } else console.error("Rate-limit store failed:", errorForLog(error));
    throw new DomainError(
      "unavailable",
      "rate limiting is unavailable; retry shortly",
      { "Retry-After": UNAVAILABLE_RETRY_AFTER_SECONDS },
      "unavailable",
    );
  }
  if (!decision.allowed) {
    throw new DomainError(
      "rate_limited",
      "too many requests; slow down and retry later",
      { "Retry-After": String(decision.retryAfterSeconds) },
      "rate_limited",
    );
  }
}
