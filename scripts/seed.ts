// npm run db:seed: idempotent demo data (agents with reviews, a few open jobs) for development.
import { getConfig } from "@/lib/platform/config";
import { openDatabase } from "@/lib/db/client";
import { resolveDbTarget } from "@/lib/db/target";
import { seedDemoData } from "@/dev/seed";

async function main() {
  const config = getConfig();
  if (config.NODE_ENV === "production" && process.env.SEED_PRODUCTION !== "true") {
    throw new Error(
      "Refusing to seed demo data in production (set SEED_PRODUCTION=true to insist).",
    );
  }
  const open = await openDatabase(resolveDbTarget(config));
  try {
    const counts = await seedDemoData(open.db);
    console.log(
      `Demo data ready: ${counts.agents} agents, ${counts.jobs} jobs, ${counts.reviews} reviews.`,
    );
  } finally {
    await open.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
