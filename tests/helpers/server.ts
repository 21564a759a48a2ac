import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateTarget } from "@/lib/db/setup";
import { resolveDbTarget } from "@/lib/db/target";
import { launchNextServer, type NextServer } from "@/scripts/next-server";
import { createPostgresSchema, type DbKind } from "./db";

export { freePort } from "@/scripts/next-server";

export const TEST_SESSION_SECRET = "test-session-secret-0123456789abcdef0123456789";
const DIST_DIR = process.env.NEXT_DIST_DIR || ".next";

export interface RunningServer extends NextServer {
  /** The environment the server runs with (database, secrets), for starting siblings. */
  env: Record<string, string>;
}

/**
 * A fresh, migrated database for a server under test: a PGlite folder in a temp dir, or a
 * new PostgreSQL schema. `cleanup` removes it.
 */
export async function prepareServerDatabase(
  kind: DbKind,
): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  if (kind === "pglite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "marketplace-pglite-"));
    const env = { PGLITE_DATA_DIR: dir };
    await migrateTarget(resolveDbTarget(env));
    return { env, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const { databaseUrl, dropSchema } = await createPostgresSchema();
  await migrateTarget(resolveDbTarget({ DATABASE_URL: databaseUrl }));
  return { env: { DATABASE_URL: databaseUrl }, cleanup: dropSchema };
}

/** Starts the production build (`next start`) with the given environment. */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  if (!fs.existsSync(path.join(DIST_DIR, "BUILD_ID"))) {
    throw new Error(
      `No production build in ${DIST_DIR}: run \`npx next build\` first (npm test does).`,
    );
  }
  const fullEnv: Record<string, string> = { SESSION_SECRET: TEST_SESSION_SECRET, ...env };
  return { ...(await launchNextServer(fullEnv)), env: fullEnv };
}
