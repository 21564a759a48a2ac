// npm run facilitator: the self-hosted x402 facilitator as its own service, the one owner of
// the gas key beside any number of app servers (which set X402_FACILITATOR_URL to its URL and
// FACILITATOR_SECRET to the same secret). Listens on FACILITATOR_HOST:FACILITATOR_PORT
// (default 127.0.0.1:4021); beyond loopback it requires FACILITATOR_SECRET.
import { LOCAL_FACILITATOR_ENV } from "@/dev/local-chain";
import { ConfigError, getConfig, parseEnv } from "@/lib/platform/config";
import { balanceWatch, createSelfHostedFacilitator } from "@/lib/payments/facilitator/facilitators";
import { startFacilitatorService } from "@/lib/payments/facilitator/http-service";
import { resolveSettlementNetwork } from "@/lib/payments/chain/network";
import { errorForLog } from "@/lib/platform/redact";

// A library's promise left unawaited must not end the one process that holds the gas key: x402
// 2.27's verify starts reading the token's code beside the payer's and, when the payer's read
// fails first, returns without awaiting it. Logged, as Next.js does in the app servers.
process.on("unhandledRejection", (reason) => {
  console.error(`Unhandled rejection (the service goes on): ${errorForLog(reason)}`);
});

async function main() {
  const config = getConfig();
  if (config.NODE_ENV === "production" && !process.env.SETTLEMENT_NETWORK?.trim()) {
    throw new ConfigError(
      "SETTLEMENT_NETWORK must be set explicitly in production (base or local)",
    );
  }
  if (config.X402_FACILITATOR_URL) {
    throw new ConfigError(
      "X402_FACILITATOR_URL is for app servers; the facilitator service settles with its own key (FACILITATOR_PRIVATE_KEY): unset it here",
    );
  }
  // Developing on the local chain: its well-known facilitator key unless one was given.
  const network = resolveSettlementNetwork(
    config.SETTLEMENT_NETWORK === "local" &&
      !config.FACILITATOR_PRIVATE_KEY &&
      !config.FACILITATOR_PRIVATE_KEYS
      ? parseEnv({
          ...process.env,
          FACILITATOR_PRIVATE_KEY: LOCAL_FACILITATOR_ENV.FACILITATOR_PRIVATE_KEY,
        })
      : config,
  );
  if (network.facilitator.kind !== "self-hosted") {
    throw new ConfigError(
      "the facilitator service needs FACILITATOR_PRIVATE_KEY or FACILITATOR_PRIVATE_KEYS (and an RPC)",
    );
  }
  const facilitator = createSelfHostedFacilitator(network, {
    privateKeys: network.facilitator.privateKeys,
    confirmationTimeoutMs: network.facilitator.confirmationTimeoutMs,
    balance: balanceWatch(network.facilitator.balance),
  });
  const service = await startFacilitatorService({
    facilitator,
    host: config.FACILITATOR_HOST,
    port: config.FACILITATOR_PORT,
    secret: config.FACILITATOR_SECRET,
  });
  console.log(
    `x402 facilitator for ${network.network} on ${service.url} (gas from ${facilitator.signerAddresses.join(", ")}, RPC ${network.rpcUrl})`,
  );
  const stop = () => void service.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
