// The in-process marketplace (./in-process.ts) as a Vitest fixture, for the domain's test files
// (lib/**/*.test.ts): `market` is started once per file and stopped when the file is done.
// Once per file because its configuration, database and facilitator are per-process
// singletons set from the environment; and before the file's first test even if that test
// does not ask for it (`auto`), so every test runs in the environment a server would have.
// `marketEnv` adds to that environment for the whole file:
//   it.override("marketEnv", { SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "2" });
// Tests take it from their context, `it("…", async ({ market }) => …)`, hooks with
// `it.beforeAll(async ({ market }) => …)`, table tests with `it.for`.
import { test as base } from "vitest";
import { type InProcessMarket, startInProcessMarket } from "./in-process";

export const test = base
  .extend("marketEnv", { scope: "file" }, {} as Record<string, string>)
  .extend(
    "market",
    { scope: "file", auto: true },
    async ({ marketEnv }, { onCleanup }): Promise<InProcessMarket> => {
      const market = await startInProcessMarket(marketEnv);
      onCleanup(() => market.stop());
      return market;
    },
  );

export const it = test;
export { describe, expect } from "vitest";
