// npm start: the production server (server/main.ts: Next.js inside our own HTTP server), run
// by its supervisor: WEB_CONCURRENCY worker processes behind one port (one per core on
// PostgreSQL unless set, one on the embedded database: server/workers.ts), each restarted when
// it dies (server/supervisor.ts). On the embedded database it applies migrations first; on
// PostgreSQL run `npm run db:migrate` as a deploy step (it is safe to run concurrently).
// Arguments pass through: npm start -- -p 8080 -H 127.0.0.1
import { getConfig } from "@/lib/platform/config";
import { migrateTarget } from "@/lib/db/setup";
import { resolveDbTarget } from "@/lib/db/target";
import { workerCount } from "../server/workers";
import { appServerArgs, run } from "../tools/run";

async function main() {
  const config = getConfig();
  const target = resolveDbTarget(config);
  if (target.kind === "pglite") await migrateTarget(target, (line) => console.log(line));
  const { workers, why } = workerCount(config);
  console.log(`> ${why}`);
  const args = [...appServerArgs(), "--workers", String(workers), ...process.argv.slice(2)];
  process.exit(
    await run(process.execPath, args, { env: { ...process.env, NODE_ENV: "production" } }),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
