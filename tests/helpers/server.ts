import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { LOCAL_FACILITATOR_ENV } from "@/dev/local-chain";
import { migrateTarget } from "@/lib/db/setup";
import { resolveDbTarget } from "@/lib/db/target";
import { type LaunchOptions, launchNextServer, type NextServer } from "@/tools/next-server";
import { createPostgresSchema, type DbKind } from "./db";

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
    const template = await migratedTemplate();
    if (template) fs.cpSync(template, dir, { recursive: true });
    else await migrateTarget(resolveDbTarget(env));
    return { env, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const { databaseUrl, dropSchema } = await createPostgresSchema();
  await migrateTarget(resolveDbTarget({ DATABASE_URL: databaseUrl }));
  return { env: { DATABASE_URL: databaseUrl }, cleanup: dropSchema };
}

/** Under Vitest, the run's migrated PGlite folder (tests/setup/pglite-template.ts). */
async function migratedTemplate(): Promise<string | undefined> {
  if (!process.env.VITEST) return undefined;
  return (await import("vitest")).inject("pgliteTemplateDir");
}

/**
 * Starts the production build (`next start`) with the given environment; `options` adds
 * Node or server flags (tools/next-server.ts).
 */
export async function startServer(
  env: Record<string, string>,
  options: LaunchOptions = {},
): Promise<RunningServer> {
  if (!fs.existsSync(path.join(DIST_DIR, "BUILD_ID"))) {
    throw new Error(
      `No production build in ${DIST_DIR}: run \`npx next build\` first (npm test does).`,
    );
  }
  // Production, as deployed: the settlement network named explicitly (production refuses a
  // default) and a chain that answers (the run's shared one unless the test brings its own).
  const fullEnv: Record<string, string> = {
    SESSION_SECRET: TEST_SESSION_SECRET,
    ...LOCAL_FACILITATOR_ENV,
    // Every simulated user of a test reads from one address (loopback), polling as it waits:
    // the read limit is out of the way unless a test sets it (tests/http/abuse.test.ts).
    RATE_LIMIT_READS_PER_MINUTE: "1000000",
    ...env,
  };
  // Loaded here, not at the top: Playwright's webServer imports this module outside Vitest.
  fullEnv.CHAIN_RPC_URL ??= (await import("vitest")).inject("testChainRpcUrl");
  const server = { ...(await launchNextServer(fullEnv, options)), env: fullEnv };
  startedServers.push(server);
  return server;
}

/**
 * Every server this test file started (each file has its own module instance), stopped or
 * not: tests/helpers/server-logs.ts reads their output.
 */
export const startedServers: RunningServer[] = [];
