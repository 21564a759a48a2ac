import { spawn, type SpawnOptions } from "node:child_process";

/** Runs a command with inherited output; resolves with its exit code. */
export function run(command: string, args: string[], options: SpawnOptions = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    // Next.js telemetry is a call to a third party: off unless the user turns it on.
    const env = { NEXT_TELEMETRY_DISABLED: "1", ...(options.env ?? process.env) };
    const child = spawn(command, args, { stdio: "inherit", ...options, env });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** Runs and throws on a non-zero exit. */
export async function mustRun(command: string, args: string[], options: SpawnOptions = {}) {
  const code = await run(command, args, options);
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
}

export const nextBin = "node_modules/.bin/next";

/**
 * The app server (server/main.ts, Next.js inside our own HTTP server), as a command:
 * `[process.execPath, ...appServerArgs, "-p", "3000"]`. One Node process, TypeScript via tsx.
 */
export const appServerArgs = ["--import", "tsx", "server/main.ts"];
export const tsxBin = "node_modules/.bin/tsx";
/**
 * Scripts run with the `react-server` condition, as Next runs server code: modules marked
 * `import "server-only"` load there and refuse to load anywhere else (a browser bundle).
 */
export const tsxArgs = ["--conditions=react-server"];
