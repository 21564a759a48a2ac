// Playwright's webServer: a fresh local chain (Hardhat's node, TestUSDC deployed, demo wallets
// funded), a fresh migrated embedded database, then the production app server
// (server/main.ts) on E2E_PORT against both.
// Writes the chain's RPC URL where the specs can read it (e2e/state.ts). Stops everything
// on SIGTERM / SIGINT.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { GANACHE_ADDRESSES, LOCAL_FACILITATOR_ENV } from "@/dev/local-chain";
import { startTestChain } from "@/tests/helpers/chain";
import { prepareServerDatabase, TEST_SESSION_SECRET } from "@/tests/helpers/server";
import { appServerArgs } from "@/tools/run";
import { E2E_ADMIN_INDEX, e2ePort, stateFile } from "./state";

async function main() {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  if (!fs.existsSync(path.join(distDir, "BUILD_ID"))) {
    throw new Error(
      `No production build in ${distDir}: run \`npx next build\` first (npm test does).`,
    );
  }
  const port = e2ePort();
  const chain = await startTestChain();
  const database = await prepareServerDatabase("pglite");
  fs.writeFileSync(stateFile(port), JSON.stringify({ rpcUrl: chain.rpcUrl }));
  console.log(`[e2e] chain ${chain.rpcUrl}, database ${JSON.stringify(database.env)}`);

  const child: ChildProcess = spawn(
    process.execPath,
    [...appServerArgs(), "-H", "127.0.0.1", "-p", String(port)],
    {
      stdio: "inherit",
      env: {
        ...process.env,
        ...database.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        SESSION_SECRET: TEST_SESSION_SECRET,
        APP_URL: `http://127.0.0.1:${port}`,
        ...LOCAL_FACILITATOR_ENV,
        CHAIN_RPC_URL: chain.rpcUrl,
        // Protected payments' disputes are resolved by an admin (e2e/protected-payment.spec.ts).
        ADMIN_ADDRESSES: GANACHE_ADDRESSES[E2E_ADMIN_INDEX],
        // The suite signs in and writes far more often than a person would.
        RATE_LIMIT_WRITES_PER_MINUTE: "100000",
        RATE_LIMIT_AUTH_PER_MINUTE: "100000",
        RATE_LIMIT_READS_PER_MINUTE: "100000",
      },
    },
  );

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    await chain.stop().catch(() => undefined);
    await database.cleanup().catch(() => undefined);
    fs.rmSync(stateFile(port), { force: true });
    process.exit(code);
  };
  process.on("SIGTERM", () => void stop(0));
  process.on("SIGINT", () => void stop(0));
  child.on("exit", (code) => {
    if (!stopping) {
      console.error(`[e2e] the app server exited with ${code}`);
      void stop(1);
    }
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
