// npm run db:migrate: apply prisma/migrations to DATABASE_URL, or to the embedded database.
import { getConfig } from "@/lib/platform/config";
import { migrateTarget } from "@/lib/db/setup";
import { describeTarget, resolveDbTarget } from "@/lib/db/target";

const target = resolveDbTarget(getConfig());
console.log(`Migrating ${describeTarget(target)}`);
migrateTarget(target, (line) => console.log(`  ${line}`))
  .then((result) => {
    console.log(
      result.applied.length > 0
        ? `Applied ${result.applied.length} migration(s).`
        : `Already up to date (${result.alreadyApplied.length} migration(s)).`,
    );
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
