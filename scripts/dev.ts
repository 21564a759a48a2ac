// npm run dev: embedded database (migrated, demo data on first run), the local chain when
// settling locally, then the app server in development mode (Next.js dev inside our own HTTP
// server, server/main.ts) on http://localhost:3000.
import path from "node:path";
import { getConfig } from "@/lib/platform/config";
import { openDatabase } from "@/lib/db/client";
import { migrateTarget } from "@/lib/db/setup";
import { describeTarget, resolveDbTarget } from "@/lib/db/target";
import { LOCAL_FACILITATOR_ENV } from "@/dev/local-chain";
import { seedDemoData } from "@/dev/seed";
import { startDevChain } from "../tools/dev-chain";
import { devServerUrl, runDevServer } from "../tools/dev-server";
import { devServerArgs } from "../tools/run";

async function main() {
  const config = getConfig();
  const target = resolveDbTarget(config);
  console.log(`Database: ${describeTarget(target)}`);
  const migrated = await migrateTarget(target, (line) => console.log(`  ${line}`));

  if (target.kind === "pglite" && migrated.applied.length > 0 && process.env.SEED !== "false") {
    const open = await openDatabase(target);
    try {
      const counts = await seedDemoData(open.db);
      console.log(`Demo data: ${counts.agents} agents, ${counts.jobs} jobs.`);
    } finally {
      await open.close();
    }
  }

  const chain = config.SETTLEMENT_NETWORK === "local" ? await startDevChain() : undefined;
  const args = process.argv.slice(2);
  console.log(`Starting the app on ${devServerUrl(args, config)} …`);
  const code = await runDevServer({
    command: process.execPath,
    args: [...devServerArgs, "--dev", ...args],
    // The local chain's facilitator key unless one was given (the production code has none).
    env: {
      NEXT_TELEMETRY_DISABLED: "1",
      ...(chain ? LOCAL_FACILITATOR_ENV : {}),
      ...process.env,
      NODE_ENV: "development",
    },
    cacheDir: path.resolve(".next", "dev"),
  });
  await chain?.stop();
  process.exit(code);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
