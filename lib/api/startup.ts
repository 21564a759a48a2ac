import "server-only";
import { getSessionSecret } from "@/lib/auth/secret";
import { assertBehindAppServer } from "@/lib/platform/client-address";
import { ConfigError, type Env, getConfig, siteOrigins } from "@/lib/platform/config";
import { getChainClient } from "@/lib/payments/chain/client";
import { getFacilitator } from "@/lib/payments/facilitator/current";
import { getSettlementNetwork } from "@/lib/payments/chain/network";
import { getEscrowSettings } from "@/lib/payments/escrow/settings";

/** Switches that exist for tests and the benchmark only: refused in production. */
export const TEST_SWITCHES = ["BENCHMARK_MODE", "WEBHOOK_ALLOW_LOOPBACK"] as const;

/**
 * Everything the server must have before it answers a request; throws a readable error.
 * `rawEnv` is the environment as given (to tell an explicit setting from a default).
 */
export function checkStartupConfig(rawEnv: Record<string, string | undefined> = process.env): void {
  const config = getConfig();
  getSessionSecret();
  siteOrigins();
  assertBehindAppServer();
  if (config.NODE_ENV === "production") assertProductionConfig(config, rawEnv);
  getSettlementNetwork();
  // Protected payments' settings (operator key, fee receiver) fail here, not on a first payment.
  getEscrowSettings();
}

export function assertProductionConfig(
  config: Env,
  rawEnv: Record<string, string | undefined>,
): void {
  const problems: string[] = [];
  if (!rawEnv.SETTLEMENT_NETWORK?.trim()) {
    problems.push(
      "SETTLEMENT_NETWORK must be set explicitly in production: base (USDC on Base) or local (a development chain)",
    );
  }
  if (config.FACILITATOR_SECRET && config.X402_FACILITATOR_URL) {
    const url = new URL(config.X402_FACILITATOR_URL);
    const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
    if (url.protocol !== "https:" && !loopback) {
      problems.push(
        "X402_FACILITATOR_URL must be https:// beyond loopback: FACILITATOR_SECRET would cross the network in clear",
      );
    }
  }
  for (const name of TEST_SWITCHES) {
    if (config[name] === "true")
      problems.push(`${name}=true is a test switch, refused in production`);
  }
  if (problems.length > 0) {
    throw new ConfigError(`Refusing to start in production:\n  ${problems.join("\n  ")}`);
  }
}

/**
 * The settlement network must answer as configured: the RPC is the configured chain, and the
 * facilitator settles the `exact` scheme on it. Throws a readable ConfigError otherwise.
 */
export async function checkSettlementDependencies({ attempts = 10 } = {}): Promise<void> {
  const network = getSettlementNetwork();
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const chainId = await getChainClient().getChainId();
      if (chainId !== network.chain.id) {
        throw new ConfigError(
          `the RPC at ${network.rpcUrl} is chain ${chainId}, but ${network.network} is configured`,
        );
      }
      const supported = await getFacilitator().getSupported();
      const kind = supported.kinds.find(
        (entry) =>
          entry.x402Version === 2 && entry.scheme === "exact" && entry.network === network.network,
      );
      if (!kind) {
        throw new ConfigError(
          `the facilitator does not settle the exact scheme on ${network.network} (x402 v2)`,
        );
      }
      return;
    } catch (error) {
      lastError = error;
      if (error instanceof ConfigError) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  const why = lastError instanceof Error ? lastError.message.split("\n")[0] : String(lastError);
  throw new ConfigError(`The settlement network is not usable: ${why}`);
}

/** Start-up checks: a bad configuration stops the server with a clear message. */
export async function checkStartupOrExit(): Promise<void> {
  try {
    checkStartupConfig();
    try {
      await checkSettlementDependencies();
    } catch (error) {
      // In development the chain may come up later (`npm run chain`): say so, keep serving.
      if (getConfig().NODE_ENV === "production") throw error;
      console.warn(`\n${error instanceof Error ? error.message : String(error)}\n`);
    }
  } catch (error) {
    console.error(`\n${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
