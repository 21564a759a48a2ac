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

/** The app server's entry: server/main.ts, Next.js inside our own HTTP server, via tsx. */
const APP_SERVER_ENTRY = ["--import", "tsx", "server/main.ts"];

/**
 * The built app server's V8 heap, in MiB (SERVER_HEAP_MIB, default 512). Without a bound V8
 * sizes the heap from the machine's memory (4 GiB on a large one) and, with that much room,
 * lets garbage pile up between major collections: the server's RSS climbed by hundreds of MiB
 * under load and stayed there, without a leak (bounded at 384 MiB, the same load ran flat at
 * about 410 MiB RSS). What the server holds at once is bounded by its limits (a request body
 * at most 10 MiB of attachments, the read cache 200 pages); raise it with the machine.
 */
function serverHeapMiB(env: NodeJS.ProcessEnv): number {
  const value = env.SERVER_HEAP_MIB?.trim() || "512";
  const mib = Number(value);
  if (!Number.isInteger(mib) || mib < 128 || mib > 65_536) {
    throw new Error(`SERVER_HEAP_MIB must be a whole number of MiB, 128 to 65536 (got "${value}")`);
  }
  return mib;
}

/**
 * The built app server (npm start, the tests, the benchmark), as a command:
 * `[process.execPath, ...appServerArgs(), "-p", "3000"]`. One Node process, TypeScript via tsx.
 * Read when a server starts, not when this module loads: `npm run dev` imports it too, and a
 * bad SERVER_HEAP_MIB is no reason for the development server not to start.
 */
export function appServerArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  // An operator's own bound in NODE_OPTIONS wins (the command line would override it).
  const bounded = /--max-old-space-size/.test(env.NODE_OPTIONS ?? "");
  return [
    ...(bounded ? [] : [`--max-old-space-size=${serverHeapMiB(env)}`]),
    // The young generation bounded too (16 MiB per semi-space): Node 24's V8 sizes it from the
    // machine. Under bursts of 8 MiB MCP answers the server's RSS rose about 340 MiB above its
    // baseline on Node 24 without this bound, 230 to 290 MiB with it (184 MiB on Node 20).
    "--max-semi-space-size=16",
    ...APP_SERVER_ENTRY,
  ];
}
/** The development server (npm run dev): its compiler's memory is not bounded. */
export const devServerArgs = APP_SERVER_ENTRY;
export const tsxBin = "node_modules/.bin/tsx";
/**
 * Scripts run with the `react-server` condition, as Next runs server code: modules marked
 * `import "server-only"` load there and refuse to load anywhere else (a browser bundle).
 */
export const tsxArgs = ["--conditions=react-server"];
