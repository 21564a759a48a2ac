// npm start: the production server. On the embedded database it applies migrations first;
// on PostgreSQL run `npm run db:migrate` as a deploy step (it is safe to run concurrently).
import { getConfig } from "@/lib/config";
import { migrateTarget } from "@/lib/db/setup";
import { resolveDbTarget } from "@/lib/db/target";
import { nextBin, run } from "./run";

async function main() {
  const target = resolveDbTarget(getConfig());
  if (target.kind === "pglite") await migrateTarget(target, (line) => console.log(line));
  const args = ["start", ...process.argv.slice(2)];
  process.exit(await run(nextBin, args, { env: { ...process.env, NODE_ENV: "production" } }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
