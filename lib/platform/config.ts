import { parseEther } from "viem";
import { z } from "zod";
import { decimalToAtomic } from "@/lib/shared/money";

/**
 * Every environment variable the server reads, parsed once. The rest of the code reads
 * `getConfig()`, never `process.env`. Parsing is lazy so that `next build` never needs
 * runtime secrets; `instrumentation.ts` calls it at server start so that a bad value stops
 * the server with a clear message instead of failing on the first request.
 */

const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

const privateKey = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key");

/** Comma-separated private keys, each given once (a key's transactions need one queue). */
const privateKeyList = z
  .string()
  .transform((value) => value.split(",").map((key) => key.trim()))
  .pipe(
    z
      .array(privateKey)
      .min(1)
      .refine(
        (keys) => new Set(keys.map((key) => key.toLowerCase())).size === keys.length,
        "lists a key twice (each key needs its own single queue)",
      ),
  );

function seconds(fallback: number | undefined, max: number) {
  return optionalString
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .pipe(z.number({ error: "must be a number of seconds" }).int().min(0).max(max).optional());
}

/** Seconds that may be fractional (a test's short backoff), within [min, max]. */
function fractionalSeconds(fallback: number, min: number, max: number) {
  return optionalString
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .pipe(
      z
        .number({ error: "must be a number of seconds" })
        .min(min, `must be at least ${min} seconds`)
        .max(max, `must be at most ${max} seconds`),
    );
}

/** A whole number within [min, max], `fallback` when unset. */
function wholeNumber(fallback: number, min: number, max: number, error = "must be a whole number") {
  return optionalString
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .pipe(z.number({ error }).int(error).min(min).max(max));
}

function perMinute(fallback: number) {
  return optionalString
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .pipe(z.number().int("must be a whole number").min(1).max(1_000_000));
}

/** A USDC amount (at most 6 decimals, > 0), in atomic units; `fallback` USDC when unset. */
function usdcSetting(fallback: string) {
  return optionalString
    .transform((value) => value ?? fallback)
    .pipe(
      z
        .string()
        .regex(/^\d{1,10}(\.\d{1,6})?$/, "must be a USDC amount with at most 6 decimals")
        .transform(decimalToAtomic)
        .refine((atomic) => atomic > 0n, "must be greater than 0"),
    );
}

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
  ),
  PGLITE_DATA_DIR: optionalString,
  // Named prepared statements on PostgreSQL; off behind a pooler in transaction mode.
  DATABASE_PREPARED_STATEMENTS: optionalString.pipe(z.enum(["true", "false"]).default("true")),
  // PostgreSQL's statement_timeout on the server's connections, in seconds (unset: 15, the
  // default of lib/db/pool.ts; 0: none, behind a pooler that refuses it as a startup parameter).
  // Under the pool's 30 s query timeout, which would otherwise give up first.
  DATABASE_STATEMENT_TIMEOUT_SECONDS: optionalString
    .transform((value) => (value === undefined ? undefined : Number(value)))
    .pipe(
      z
        .number({ error: "must be a whole number of seconds from 0 to 29" })
        .int()
        .min(0)
        .max(29)
        .optional(),
    ),
  SESSION_SECRET: optionalString.pipe(
    z.string().min(32, "must be at least 32 characters").optional(),
  ),
  APP_URL: optionalString.pipe(z.url().optional()),
  SETTLEMENT_NETWORK: optionalString.pipe(z.enum(["local", "base"]).default("local")),
  CHAIN_RPC_URL: optionalString.pipe(z.url().optional()),
  X402_FACILITATOR_URL: optionalString.pipe(z.url().optional()),
  // Shared secret between app servers and our own facilitator service (`npm run facilitator`):
  // the service requires it as a bearer token, app servers send it.
  FACILITATOR_SECRET: optionalString.pipe(
    z.string().min(32, "must be at least 32 characters").optional(),
  ),
  // How long an app server waits for a facilitator over HTTP (X402_FACILITATOR_URL).
  FACILITATOR_TIMEOUT_SECONDS: seconds(60, 600).pipe(z.number().min(1)),
  // Where `npm run facilitator` listens: loopback unless FACILITATOR_SECRET is set.
  FACILITATOR_HOST: optionalString.pipe(z.string().default("127.0.0.1")),
  FACILITATOR_PORT: optionalString
    .transform((value) => (value === undefined ? 4021 : Number(value)))
    .pipe(z.number({ error: "must be a port number" }).int().min(0).max(65_535)),
  CDP_API_KEY_ID: optionalString,
  CDP_API_KEY_SECRET: optionalString,
  FACILITATOR_PRIVATE_KEY: optionalString.pipe(privateKey.optional()),
  // Several gas keys for the self-hosted facilitator (comma-separated), each with its own
  // ordered queue: settlement throughput grows with keys. Instead of FACILITATOR_PRIVATE_KEY.
  FACILITATOR_PRIVATE_KEYS: optionalString.pipe(privateKeyList.optional()),
  // Each gas key's ETH balance is read every this many seconds (0: never) and logged as a
  // warning below FACILITATOR_MIN_BALANCE_ETH.
  FACILITATOR_BALANCE_CHECK_SECONDS: seconds(300, 86_400).pipe(z.number()),
  FACILITATOR_MIN_BALANCE_ETH: optionalString
    .transform((value) => value ?? "0.002")
    .pipe(
      z
        .string()
        .regex(/^\d{1,9}(\.\d{1,18})?$/, "must be an amount of ETH, e.g. 0.002")
        .transform((value) => parseEther(value)),
    ),
  // Base mainnet JSON-RPC (SETTLEMENT_NETWORK=base): receipts, reconciliation, and the
  // self-hosted facilitator's transactions. CHAIN_RPC_URL is the local chain's.
  BASE_RPC_URL: optionalString.pipe(z.url().optional()),
  // Local chain only: a TestUSDC deployed somewhere other than its deterministic address.
  LOCAL_TOKEN_ADDRESS: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
      .optional(),
  ),
  // Port `npm run chain` listens on (127.0.0.1).
  CHAIN_PORT: optionalString
    .transform((value) => (value === undefined ? 8545 : Number(value)))
    .pipe(z.number({ error: "must be a port number" }).int().min(1).max(65_535)),
  // The smallest budget or bid accepted, and the smallest payment that earns reputation (a
  // Verified badge, a review's weight, a completed job): dust cannot buy either.
  MIN_AMOUNT_USDC: usdcSetting("1"),
  // Protected payments (issue 25, docs/payments.md). The escrow operator's key: it authorizes,
  // captures and voids held payments and pays their gas. Unset: only pay-now is offered.
  ESCROW_OPERATOR_PRIVATE_KEY: optionalString.pipe(privateKey.optional()),
  // The platform's fee on each release, in basis points of the released amount (0: none), and
  // the wallet it goes to (required when the fee is not 0).
  PLATFORM_FEE_BPS: wholeNumber(0, 0, 10_000),
  PLATFORM_FEE_RECEIVER: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
      .optional(),
  ),
  // After the agent's own etaDays: how long past it the poster must still wait before
  // cancelling an undelivered job (the poster sees the resulting deadline when paying).
  ESCROW_GRACE_HOURS: wholeNumber(24, 0, 24 * 365),
  // After delivery: how long the poster has to complete or dispute before the payment is
  // released to the agent by itself.
  ESCROW_REVIEW_HOURS: wholeNumber(72, 1, 24 * 365),
  // After the review window: time left to resolve a dispute before the authorization expires
  // (from then on only the payer can take the money back, on chain: reclaim).
  ESCROW_DISPUTE_HOURS: wholeNumber(168, 1, 24 * 365),
  // Wallets that resolve disputes (comma-separated): the platform operator's staff.
  ADMIN_ADDRESSES: optionalString.pipe(
    z
      .string()
      .regex(
        /^0x[0-9a-fA-F]{40}(\s*,\s*0x[0-9a-fA-F]{40})*$/,
        "must be comma-separated 0x-prefixed 20-byte hex addresses",
      )
      .optional(),
  ),
  RATE_LIMIT_WRITES_PER_MINUTE: perMinute(120),
  RATE_LIMIT_AUTH_PER_MINUTE: perMinute(30),
  // API reads (GET) per client address and per wallet, and MCP read tools alike.
  RATE_LIMIT_READS_PER_MINUTE: perMinute(600),
  // How long the self-hosted facilitator waits for a settlement's receipt before answering
  // "pending" (default: 20 s on the local chain, 60 s on Base).
  SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: seconds(undefined, 600).pipe(
    z.number().min(1, "must be at least 1 second").optional(),
  ),
  // A settlement pending longer than this is settled from the chain by the background
  // reconciler (and before anyone may pay for the job again).
  SETTLEMENT_RECONCILE_AFTER_SECONDS: seconds(60, 86_400).pipe(z.number()),
  // How often each server's background reconciler looks for such settlements (0: never).
  SETTLEMENT_RECONCILE_INTERVAL_SECONDS: seconds(10, 3_600).pipe(z.number()),
  // Behind N reverse proxies: the client address is the Nth X-Forwarded-For entry from the
  // right. 0 (default): X-Forwarded-For is ignored and the socket's peer address counts.
  TRUST_PROXY_HOPS: optionalString
    .transform((value) => (value === undefined ? 0 : Number(value)))
    .pipe(z.number({ error: "must be a whole number" }).int().min(0).max(10)),
  // Rate-limit counters in Redis instead of the database (redis:// or rediss://).
  REDIS_URL: optionalString.pipe(
    z
      .string()
      .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
      .optional(),
  ),
  // Namespace of this deployment's keys in Redis (several apps or environments may share one).
  REDIS_KEY_PREFIX: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,64}$/, "must be 1-64 of A-Z a-z 0-9 : _ . -")
      .default("marketplace:"),
  ),
  // The port the app server listens on (npm start / npm run dev set it); in development with
  // no APP_URL, http://localhost:PORT and http://127.0.0.1:PORT are the site's own origins.
  PORT: optionalString
    .transform((value) => (value === undefined ? 3000 : Number(value)))
    .pipe(z.number({ error: "must be a port number" }).int().min(1).max(65_535)),
  // A request (headers and body) must arrive within this many seconds, else 408 and the
  // connection is closed: a body that trickles in cannot hold the server.
  REQUEST_TIMEOUT_SECONDS: optionalString
    .transform((value) => (value === undefined ? 60 : Number(value)))
    .pipe(z.number({ error: "must be a number of seconds" }).int().min(1).max(3600)),
  // Large uploads (bodies past the 1 MiB JSON limit: deliveries) read at once per process, and
  // per client (address, wallet); and the pace below which an upload loses its slot (408).
  UPLOAD_SLOTS: wholeNumber(4, 1, 1_000),
  UPLOAD_SLOTS_PER_CLIENT: wholeNumber(2, 1, 1_000),
  UPLOAD_MIN_BYTES_PER_SECOND: wholeNumber(
    16_384,
    1,
    1_000_000_000,
    "must be a whole number of bytes",
  ),
  // Worker processes `npm start` runs behind one port (server/supervisor.ts). Unset: one per
  // core on PostgreSQL; the embedded database allows one (server/workers.ts decides).
  WEB_CONCURRENCY: optionalString
    .transform((value) => (value === undefined ? undefined : Number(value)))
    .pipe(
      z
        .number({ error: "must be a whole number from 1 to 64" })
        .int("must be a whole number from 1 to 64")
        .min(1, "must be a whole number from 1 to 64")
        .max(64, "must be a whole number from 1 to 64")
        .optional(),
    ),
  // A process whose V8 heap passes this share of its limit answers new requests 503 +
  // Retry-After until it is below again, instead of dying of "heap out of memory".
  HEAP_SHED_PERCENT: wholeNumber(85, 5, 99, "must be a whole percentage"),
  BENCHMARK_MODE: optionalString.pipe(z.enum(["true", "false"]).default("false")),
  // Webhook URLs on loopback (http://127.0.0.1:PORT) for development and tests. Unset: on in
  // development, off otherwise; refused in production. Private, link-local and other
  // non-public addresses are never allowed.
  WEBHOOK_ALLOW_LOOPBACK: optionalString.pipe(z.enum(["true", "false"]).optional()),
  // How often each server's webhook worker fans new events out and sends due deliveries
  // (milliseconds; 0: never).
  WEBHOOK_WORKER_INTERVAL_MS: optionalString
    .transform((value) => (value === undefined ? 1000 : Number(value)))
    .pipe(z.number({ error: "must be a number of milliseconds" }).int().min(0).max(60_000)),
  // A webhook request (connect, send, answer) must finish within this time.
  WEBHOOK_TIMEOUT_SECONDS: seconds(10, 60).pipe(z.number().min(1, "must be at least 1 second")),
  // Retries: the first after this many seconds, each next one twice as long after the previous.
  WEBHOOK_RETRY_BASE_SECONDS: fractionalSeconds(30, 0.05, 3_600),
  // A message is retried until this long after it was first due; then it fails and its
  // subscription is disabled.
  WEBHOOK_RETRY_WINDOW_SECONDS: fractionalSeconds(86_400, 1, 7 * 86_400),
  // How long the first page of a job list, and one job, may be served again from memory while
  // no commit has been noted since it was read (lib/marketplace/read-cache.ts); 0: never.
  READ_CACHE_SECONDS: fractionalSeconds(5, 0, 3_600),
  // Long-polls (GET /api/v1/events?wait=) one server holds at once; beyond, 503 + Retry-After.
  EVENTS_LONG_POLL_MAX_WAITERS: wholeNumber(100, 1, 100_000),
  // Of those, how many one client address may hold at once; beyond, 429 + Retry-After.
  EVENTS_LONG_POLL_PER_CLIENT: wholeNumber(5, 1, 100_000),
  // Retention (lib/events/retention.ts): how often each server prunes old rows (0: never), and
  // how long events and the finished part of the webhook delivery log are kept (0: for ever).
  RETENTION_INTERVAL_SECONDS: wholeNumber(3_600, 0, 7 * 86_400, "must be a number of seconds"),
  EVENT_RETENTION_DAYS: wholeNumber(30, 0, 36_500, "must be a whole number of days"),
  WEBHOOK_LOG_RETENTION_DAYS: wholeNumber(7, 0, 36_500, "must be a whole number of days"),
});

export type Env = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid environment configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}

let cached: Env | undefined;

export function getConfig(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

export const isProduction = () => getConfig().NODE_ENV === "production";

/**
 * The site's own public origins, from configuration only: APP_URL's origin, or in development
 * with no APP_URL the dev server's http://localhost:PORT and http://127.0.0.1:PORT. Request
 * headers (Host, X-Forwarded-Host) never add to this list: it decides which SIWE `domain`
 * signs anyone in and which browser `Origin` may write.
 */
export function siteOrigins(config: Env = getConfig()): string[] {
  if (config.APP_URL) return [new URL(config.APP_URL).origin];
  if (config.NODE_ENV === "production") {
    throw new ConfigError(
      "APP_URL is not set. Production needs the public URL of the app (for example " +
        "APP_URL=https://marketplace.example): its host is the only SIWE domain accepted.",
    );
  }
  return [`http://localhost:${config.PORT}`, `http://127.0.0.1:${config.PORT}`];
}
