import { z } from "zod";

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

function perMinute(fallback: number) {
  return optionalString
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .pipe(z.number().int("must be a whole number").min(1).max(1_000_000));
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
  SESSION_SECRET: optionalString.pipe(
    z.string().min(32, "must be at least 32 characters").optional(),
  ),
  APP_URL: optionalString.pipe(z.url().optional()),
  SETTLEMENT_NETWORK: optionalString.pipe(z.enum(["local", "base"]).default("local")),
  CHAIN_RPC_URL: optionalString.pipe(z.url().optional()),
  X402_FACILITATOR_URL: optionalString.pipe(z.url().optional()),
  CDP_API_KEY_ID: optionalString,
  CDP_API_KEY_SECRET: optionalString,
  FACILITATOR_PRIVATE_KEY: optionalString.pipe(privateKey.optional()),
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
  RATE_LIMIT_WRITES_PER_MINUTE: perMinute(120),
  RATE_LIMIT_AUTH_PER_MINUTE: perMinute(30),
  // A settlement left pending longer than this (a crash between the on-chain transfer and
  // our record) is checked against the chain before anyone may pay for the job again.
  SETTLEMENT_RECONCILE_AFTER_SECONDS: optionalString
    .transform((value) => (value === undefined ? 60 : Number(value)))
    .pipe(z.number({ error: "must be a number of seconds" }).int().min(0).max(86_400)),
  TRUST_PROXY: optionalString.pipe(z.enum(["true", "false"]).default("false")),
  ENABLE_TEST_HOOKS: optionalString.pipe(z.enum(["true", "false"]).default("false")),
  // Test builds only (with ENABLE_TEST_HOOKS): the process dies right after the on-chain
  // settle, before the hash is recorded, to prove crash recovery.
  TEST_CRASH_AFTER_SETTLE: optionalString.pipe(z.enum(["true", "false"]).default("false")),
  BENCHMARK_MODE: optionalString.pipe(z.enum(["true", "false"]).default("false")),
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
