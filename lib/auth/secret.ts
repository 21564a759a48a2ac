import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ConfigError, getConfig } from "@/lib/platform/config";

const DEV_SECRET_FILE = path.join(".data", "session-secret");

/**
 * The iron-session password. Production requires SESSION_SECRET (checked at server start);
 * development and tests without one get a random secret kept in .data/ so sessions survive
 * restarts of `npm run dev`.
 */
export function getSessionSecret(): string {
  // Read once per process: every signed-in request asks (lib/auth/session-cookie.ts).
  secret ??= readSessionSecret();
  return secret;
}
let secret: string | undefined;

function readSessionSecret(): string {
  const { SESSION_SECRET, NODE_ENV } = getConfig();
  if (SESSION_SECRET) return SESSION_SECRET;
  if (NODE_ENV === "production") {
    throw new ConfigError(
      "SESSION_SECRET is not set. Production needs a random secret of at least 32 characters, " +
        "for example: SESSION_SECRET=$(openssl rand -hex 32)",
    );
  }
  const existing = readDevSecret();
  if (existing) return existing;
  // Two processes starting at once on one .data/ (a dev server and a script) must agree: the
  // file is created whole and only once (a hard link fails if it exists), and the one that
  // lost reads the winner's secret.
  const created = randomBytes(32).toString("hex");
  fs.mkdirSync(path.dirname(DEV_SECRET_FILE), { recursive: true });
  const temp = `${DEV_SECRET_FILE}.${process.pid}`;
  fs.writeFileSync(temp, created, { mode: 0o600 });
  try {
    fs.linkSync(temp, DEV_SECRET_FILE);
    return created;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const winner = readDevSecret();
    if (winner) return winner;
    fs.renameSync(temp, DEV_SECRET_FILE); // a short or empty file: replaced
    return created;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function readDevSecret(): string | undefined {
  try {
    const existing = fs.readFileSync(DEV_SECRET_FILE, "utf8").trim();
    return existing.length >= 32 ? existing : undefined;
  } catch {
    return undefined; // not created yet
  }
}
