// One migration runner process for tests/db/migrate-processes.test.ts. It connects, loads the
// migrations, then waits at the test's barrier (a shared advisory lock on a key the test holds
// exclusively) so that every racer starts the runner at the same instant, runs
// lib/db/migrate.ts's runner (as `npm run db:migrate` does) and prints one JSON line:
// `{ ok, startedAt, endedAt, applied, alreadyApplied }` or `{ ok: false, error }`.
//
// Env: DATABASE_URL (with ?schema=), MIGRATIONS_DIR, BARRIER ("<int>:<int>", the key pair).
import { loadMigrations, migrate } from "@/lib/db/migrate";
import { openPgSession } from "@/lib/db/sql";

async function main() {
  const { DATABASE_URL, MIGRATIONS_DIR, BARRIER } = process.env;
  if (!DATABASE_URL || !MIGRATIONS_DIR || !BARRIER) {
    throw new Error("DATABASE_URL, MIGRATIONS_DIR and BARRIER are required");
  }
  const url = new URL(DATABASE_URL);
  const schema = url.searchParams.get("schema") ?? undefined;
  url.searchParams.delete("schema");
  const [classKey, objectKey] = BARRIER.split(":").map(Number);
  // Everything that takes time is done before the barrier: connections and files.
  const barrier = await openPgSession(url.toString());
  const session = await openPgSession(url.toString(), schema);
  const migrations = loadMigrations(MIGRATIONS_DIR);
  try {
    await barrier.query("SELECT pg_advisory_lock_shared($1, $2)", [classKey, objectKey]);
    await barrier.query("SELECT pg_advisory_unlock_shared($1, $2)", [classKey, objectKey]);
    const startedAt = Date.now();
    try {
      const result = await migrate(session, migrations);
      console.log(JSON.stringify({ ok: true, startedAt, endedAt: Date.now(), ...result }));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.log(JSON.stringify({ ok: false, startedAt, endedAt: Date.now(), error: message }));
      process.exitCode = 1;
    }
  } finally {
    await session.close();
    await barrier.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
