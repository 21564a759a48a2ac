// `npm run db:migrate` as separate processes: two runners on one PostgreSQL, and a second
// process on an embedded database in use. (The runner's logic is tested in-process in
// lib/db/migrate.test.ts.)
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
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
      const { databaseUrl, dropSchema } = await createPostgresSchema();
      try {
        const results = await Promise.all([
          runMigrateScript({ DATABASE_URL: databaseUrl }),
          runMigrateScript({ DATABASE_URL: databaseUrl }),
        ]);
        const outputs = results.map((result) => result.stdout).join("\n");
        // One process applies every migration, the other finds nothing left to do.
        const applied = new RegExp(`Applied ${loadMigrations().length} migration`, "g");
        expect(outputs.match(applied)?.length).toBe(1);
        expect(outputs).toMatch(/Already up to date/);
        const url = new URL(databaseUrl);
        const schema = url.searchParams.get("schema")!;
        url.searchParams.delete("schema");
        const session = await openPgSession(url.toString(), schema);
        const rows = await session.query(`SELECT migration_name FROM "_prisma_migrations"`);
        await session.close();
        expect(rows).toHaveLength(loadMigrations().length);
      } finally {
        await dropSchema();
      }
    },
  );
});
