// The migration runner as separate processes: two runners started at the same instant on one
// PostgreSQL (a barrier of the test's own), and a second process on an embedded database in use. (The runner's logic is tested in-process in
// tests/db/migrate.test.ts.)
import { execFile } from "node:child_process";
import { randomInt } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";
import { loadMigrations } from "@/lib/db/migrate";
import { openPgSession } from "@/lib/db/sql";
import { createPostgresSchema, TEST_DATABASE_URL } from "@/tests/helpers/db";
import { tsxArgs, tsxBin } from "@/tools/run";

const exec = promisify(execFile);
const runMigrateScript = (env: Record<string, string>) =>
  exec(path.resolve(tsxBin), [...tsxArgs, "scripts/migrate.ts"], {
    env: { ...process.env, ...env },
  });

describe("npm run db:migrate", () => {
  it("gives a clear error when a second process opens the same embedded database", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pglite-lock-"));
    const open = await openDatabase({ kind: "pglite", dataDir: dir });
    try {
      await expect(runMigrateScript({ PGLITE_DATA_DIR: dir })).rejects.toMatchObject({
        stderr: expect.stringContaining("is in use by process"),
      });
    } finally {
      await open.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // Runs where TEST_DATABASE_URL names a PostgreSQL server (always in CI).
  (TEST_DATABASE_URL ? it : () => {})(
    "is safe from two processes at once on PostgreSQL",
    async () => {
      // Several migrations: the project's own, then two that take half a second each, so that
      // the runners' work overlaps for more than a second once they start together.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "migrations-race-"));
      for (const migration of loadMigrations()) {
        fs.mkdirSync(path.join(dir, migration.name));
        fs.writeFileSync(path.join(dir, migration.name, "migration.sql"), migration.sql);
      }
      const slow: [string, string][] = [
        ["20990101000000_race_one", "SELECT pg_sleep(0.5);\nCREATE TABLE race_one (id int);"],
        ["20990102000000_race_two", "CREATE TABLE race_two (id int);\nSELECT pg_sleep(0.5);"],
      ];
      for (const [name, sql] of slow) {
        fs.mkdirSync(path.join(dir, name));
        fs.writeFileSync(path.join(dir, name, "migration.sql"), sql);
      }
      const names = [...loadMigrations().map((m) => m.name), ...slow.map(([name]) => name)];

      const { databaseUrl, dropSchema } = await createPostgresSchema();
      // The barrier: a key of this test's own, held here; each racer blocks on it (shared) and
      // all are let go at once when it is released.
      const barrier = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await barrier.connect();
      const key: [number, number] = [14, randomInt(1, 2 ** 31 - 1)];
      try {
        await barrier.query("SELECT pg_advisory_lock($1, $2)", key);
        const racers = [0, 1].map(() =>
          exec(path.resolve(tsxBin), [...tsxArgs, "tests/db/migrate-racer.ts"], {
            env: {
              ...process.env,
              DATABASE_URL: databaseUrl,
              MIGRATIONS_DIR: dir,
              BARRIER: key.join(":"),
            },
          }).then(
            (done) => done.stdout,
            (failed: { stdout?: string; stderr?: string }) =>
              failed.stdout || `{"ok":false,"error":${JSON.stringify(failed.stderr ?? "")}}`,
          ),
        );
        // Both racers are connected and waiting at the barrier before it opens.
        const deadline = Date.now() + 60_000;
        for (;;) {
          const waiting = await barrier.query<{ count: string }>(
            `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
               AND classid = $1 AND objid = $2 AND objsubid = 2`,
            key,
          );
          if (Number(waiting.rows[0]!.count) === 2) break;
          if (Date.now() > deadline) throw new Error("the racers never reached the barrier");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await barrier.query("SELECT pg_advisory_unlock($1, $2)", key);
        const results = (await Promise.all(racers)).map(
          (stdout) =>
            JSON.parse(stdout.trim().split("\n").at(-1)!) as {
              ok: boolean;
              startedAt: number;
              endedAt: number;
              applied?: string[];
              alreadyApplied?: string[];
              error?: string;
            },
        );
        // They started together: each began before the other ended.
        const [a, b] = results as [(typeof results)[0], (typeof results)[0]];
        expect(a.startedAt).toBeLessThan(b.endedAt);
        expect(b.startedAt).toBeLessThan(a.endedAt);
        // One applied every migration, the other waited for it and found nothing to do.
        expect(results.map((r) => r.error)).toEqual([undefined, undefined]);
        expect(results.map((r) => r.applied).sort()).toEqual([[], names]);
        expect(results.map((r) => r.alreadyApplied).sort()).toEqual([[], names]);
        const url = new URL(databaseUrl);
        const schema = url.searchParams.get("schema")!;
        url.searchParams.delete("schema");
        const session = await openPgSession(url.toString(), schema);
        const rows = await session.query<{ migration_name: string; finished_at: Date | null }>(
          `SELECT migration_name, finished_at FROM "_prisma_migrations" ORDER BY migration_name`,
        );
        await session.close();
        expect(rows.map((row) => row.migration_name)).toEqual(names);
        expect(rows.every((row) => row.finished_at !== null)).toBe(true);
      } finally {
        await barrier.end();
        await dropSchema();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
