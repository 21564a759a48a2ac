// The only routes that are not the product (app/api/dev/[hook]), behind one gate: each exists
// only where it is enabled, else its path is as unknown as any other (404).
// - faucet: mints test USDC; only while settling on the local chain (contract: dev faucet).
// - echo: the benchmark's ceiling; only with BENCHMARK_MODE=true, which production refuses to
//   start with (lib/startup.ts), and never under NODE_ENV=production here either.
import { getConfig } from "@/lib/platform/config";
import { notFound } from "@/lib/platform/errors";
import { getSettlementNetwork } from "@/lib/payments/chain/network";

export type DevHook = "faucet" | "echo";

export function devHookEnabled(hook: string): hook is DevHook {
  if (hook === "faucet") return getSettlementNetwork().name === "local";
  if (hook === "echo") {
    const { BENCHMARK_MODE, NODE_ENV } = getConfig();
    return BENCHMARK_MODE === "true" && NODE_ENV !== "production";
  }
  return false;
}

export function assertDevHook(hook: string): DevHook {
  if (!devHookEnabled(hook)) throw notFound("not_found", "no such API endpoint");
  return hook;
}
