import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { SqlSession } from "./sql";

/**
 * Applies `prisma/migrations/*\/migration.sql` in order, bookkeeping in Prisma's own
 * `_prisma_migrations` table (same columns, checksum = sha256 of the file bytes) so that
 * Prisma's CLI, where it can run, sees the same history. Prisma's CLI needs a schema-engine
 * binary that cannot be downloaded here, hence this runner.
 *
 * Safe from several processes at once: a PostgreSQL advisory lock serialises runners, and
 * each runner re-reads the table after taking the lock.
 */

export const MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");
// Arbitrary constant shared by every runner of this project ("marketpl" in ASCII, truncated).
const ADVISORY_LOCK_KEY = 7_020_658_277_657_000;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const bytes = fs.readFileSync(path.join(dir, name, "migration.sql"));
      return {
        name,
        sql: bytes.toString("utf8"),
        checksum: createHash("sha256").update(bytes).digest("hex"),
      };
    });
}

export async function migrate(
  session: SqlSession,
  migrations: Migration[] = loadMigrations(),
  log: (line: string) => void = () => {},
): Promise<MigrateResult> {
  // mutant: migrations-the-runner-s-advisory-lock
  await session.query("SELECT pg_advisory_lock($1)", [ADVISORY_LOCK_KEY]);
  // mutant end
  try {
    await session.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const rows = await session.query<MigrationRow>(
      `SELECT "migration_name", "checksum", "finished_at", "rolled_back_at", "logs"
         FROM "_prisma_migrations" ORDER BY "started_at"`,
    );

    const unfinished = rows.find((row) => !row.finished_at && !row.rolled_back_at);
    if (unfinished) {
      throw new MigrationError(
        `Migration ${unfinished.migration_name} failed or never finished; refusing to continue. ` +
          `Fix the database by hand, then mark the row rolled back (rolled_back_at) or finished. ` +
          `Logs: ${unfinished.logs ?? "(none)"}`,
      );
    }

    const applied = new Map(
      rows
        .filter((row) => row.finished_at && !row.rolled_back_at)
        .map((row) => [row.migration_name, row]),
    );
    const result: MigrateResult = { applied: [], alreadyApplied: [] };

    for (const migration of migrations) {
      const existing = applied.get(migration.name);
      if (existing) {
        if (existing.checksum !== migration.checksum) {
          throw new MigrationError(
            `Migration ${migration.name} was changed after it was applied (checksum mismatch). ` +
              "Add a new migration instead of editing an applied one.",
          );
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      const id = randomUUID();
      await session.query(
        `INSERT INTO "_prisma_migrations" ("id", "checksum", "migration_name", "started_at", "applied_steps_count")
         VALUES ($1, $2, $3, now(), 0)`,
        [id, migration.checksum, migration.name],
      );
      try {
        await session.exec(migration.sql);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await session.query(`UPDATE "_prisma_migrations" SET "logs" = $2 WHERE "id" = $1`, [
          id,
          message,
        ]);
        throw new MigrationError(`Migration ${migration.name} failed: ${message}`);
      }
      await session.query(
        `UPDATE "_prisma_migrations" SET "finished_at" = now(), "applied_steps_count" = 1 WHERE "id" = $1`,
        [id],
      );
      log(`applied ${migration.name}`);
      result.applied.push(migration.name);
    }

    const unknown = [...applied.keys()].filter((name) => !migrations.some((m) => m.name === name));
    if (unknown.length > 0) {
      log(`warning: the database has migrations this code does not know: ${unknown.join(", ")}`);
    }
    return result;
  } finally {
    await session.query("SELECT pg_advisory_unlock($1)", [ADVISORY_LOCK_KEY]);
  }
}
