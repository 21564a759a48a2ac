import { type MigrateResult, migrate } from "./migrate";
import { openPgSession, pgliteSession } from "./sql";
import { openDatabase } from "./client";
import type { DbTarget } from "./target";

/** Brings the target's schema up to date (used by `npm run db:migrate`, dev, start and tests). */
export async function migrateTarget(
  target: DbTarget,
  log: (line: string) => void = () => {},
): Promise<MigrateResult> {
  if (target.kind === "postgres") {
    const session = await openPgSession(target.connectionString, target.schema);
    try {
      return await migrate(session, undefined, log);
    } finally {
      await session.close();
    }
  }
  const open = await openDatabase(target);
  try {
    return await migrate(pgliteSession(open.pglite!), undefined, log);
  } finally {
    await open.close();
  }
}
