import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The port the e2e server listens on (fixed, so the config and the workers agree). */
export function e2ePort(): number {
  return Number(process.env.E2E_PORT || 3210);
}

export function stateFile(port: number = e2ePort()): string {
  return path.join(os.tmpdir(), `marketplace-e2e-${port}.json`);
}

/** What e2e/serve.ts started: the local chain's RPC URL. */
export function e2eState(): { rpcUrl: string } {
  return JSON.parse(fs.readFileSync(stateFile(), "utf8"));
}

/** The local chain account that e2e/serve.ts makes a platform admin (ADMIN_ADDRESSES). */
export const E2E_ADMIN_INDEX = 9;
