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
  try {
    const existing = fs.readFileSync(DEV_SECRET_FILE, "utf8").trim();
    if (existing.length >= 32) return existing;
  } catch {
    // not created yet
  }
  const created = randomBytes(32).toString("hex");
  fs.mkdirSync(path.dirname(DEV_SECRET_FILE), { recursive: true });
  fs.writeFileSync(DEV_SECRET_FILE, created, { mode: 0o600 });
  return created;
}
