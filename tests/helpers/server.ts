import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { migrateTarget } from "@/lib/db/setup";
import { resolveDbTarget } from "@/lib/db/target";
import { createPostgresSchema, type DbKind } from "./db";

export const TEST_SESSION_SECRET = "test-session-secret-0123456789abcdef0123456789";
const DIST_DIR = process.env.NEXT_DIST_DIR || ".next";

export interface RunningServer {
  url: string;
  /** The environment the server runs with (database, secrets), for starting siblings. */
  env: Record<string, string>;
  stop(): Promise<void>;
  logs(): string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
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
  const port = await freePort();
  const fullEnv: Record<string, string> = {
    SESSION_SECRET: TEST_SESSION_SECRET,
    NEXT_TELEMETRY_DISABLED: "1",
    ...env,
  };
  let output = "";
  const child: ChildProcess = spawn(
    path.resolve("node_modules/.bin/next"),
    ["start", "-H", "127.0.0.1", "-p", String(port)],
    {
      env: { ...(process.env as Record<string, string>), NODE_ENV: "production", ...fullEnv },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited early:\n${output}`);
    if (output.includes("is in use by process")) {
      await stop();
      throw new Error(`the server's embedded database is held by another process:\n${output}`);
    }
    try {
      const response = await fetch(`${url}/api/v1/jobs?limit=1`);
      if (response.ok) return { url, env: fullEnv, stop, logs: () => output };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  await stop();
  throw new Error(`next start did not become ready:\n${output}`);
}
