// Vitest global setup: one local chain for the whole run, the default CHAIN_RPC_URL of every
// server a test starts (a production start needs a chain that answers). Tests that move the
// chain's clock or stall it start their own (tests/helpers/chain.ts).
import type { TestProject } from "vitest/node";
import { startTestChain } from "@/tests/helpers/chain";

declare module "vitest" {
  export interface ProvidedContext {
    testChainRpcUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const chain = await startTestChain();
  project.provide("testChainRpcUrl", chain.rpcUrl);
  return () => chain.stop();
}
