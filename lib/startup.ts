import { getSessionSecret } from "@/lib/auth/secret";
import { getConfig } from "@/lib/config";

/** Everything the server must have before it answers a request; throws a readable error. */
export function checkStartupConfig(): void {
  getConfig();
  getSessionSecret();
}

export function checkStartupConfigOrExit(): void {
  try {
    checkStartupConfig();
  } catch (error) {
    console.error(`\n${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
