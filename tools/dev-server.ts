// The development server as `npm run dev` runs it: its output passed through, watched for the
// one failure a newcomer cannot read. Next.js's Turbopack keeps a persistent compile cache in
// .next/dev; when that cache is corrupted (a known upstream bug, seen here once on a second
// start: "task is missing in memory or persistent storage"), its Rust workers panic and the
// server dies or hangs. We say what happened, clear the cache and start again, once.
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Env } from "@/lib/platform/config";

/** What Turbopack prints when its task graph or persistent cache is broken. */
export const TURBOPACK_PANIC =
  /task is missing in memory or persistent storage|An unexpected Turbopack error|panicked at [^\n]*turbo-?tasks/i;

export interface DevServerOptions {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** The persistent cache to clear after a panic (.next/dev). */
  cacheDir: string;
  /** How many times to clear the cache and start again (default 1). */
  recoveries?: number;
  log?: (line: string) => void;
  /** Where the child's output goes (default: this process's). */
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

/** Runs the development server until it stops; resolves with the exit code to end with. */
export async function runDevServer(options: DevServerOptions): Promise<number> {
  const log = options.log ?? ((line: string) => console.error(line));
  let recoveries = options.recoveries ?? 1;
  for (;;) {
    const { code, panicked } = await runOnce(options);
    if (!panicked) {
      if (code !== 0 && code !== 130 && code !== 143) {
        log(
          `\nThe development server stopped (exit code ${code}); its output above says why. ` +
            "Fix that and run `npm run dev` again.",
        );
      }
      return code;
    }
    if (recoveries === 0) {
      log(
        `\nTurbopack panicked again after its cache (${options.cacheDir}) was cleared. Stop ` +
          "every `npm run dev`, delete the whole .next folder and start again; if it still " +
          "happens, it is a Next.js bug: report it with the output above.",
      );
      return 1;
    }
    recoveries -= 1;
    log(
      `\nTurbopack (Next.js's compiler) panicked: its persistent cache in ${options.cacheDir} ` +
        "is corrupted, a known Next.js bug that can follow a stopped dev server. Clearing " +
        "that cache and starting again (your code and data are untouched).\n",
    );
    rmSync(options.cacheDir, { recursive: true, force: true });
  }
}

function runOnce(options: DevServerOptions): Promise<{ code: number; panicked: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.command, options.args, {
      env: options.env,
      stdio: ["inherit", "pipe", "pipe"],
    });
    let panicked = false;
    // A panic's text may arrive split across chunks: keep the tail of what came before.
    let tail = "";
    const watch = (chunk: Buffer, out: NodeJS.WritableStream) => {
      out.write(chunk);
      const text = tail + chunk.toString("utf8");
      tail = text.slice(-400);
      if (!panicked && TURBOPACK_PANIC.test(text)) {
        panicked = true;
        stop(child);
      }
    };
    child.stdout!.on("data", (chunk: Buffer) => watch(chunk, options.stdout ?? process.stdout));
    child.stderr!.on("data", (chunk: Buffer) => watch(chunk, options.stderr ?? process.stderr));
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onInt = forward("SIGINT");
    const onTerm = forward("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve({ code: code ?? (signal === "SIGINT" ? 130 : signal ? 143 : 1), panicked });
    });
  });
}

/** A panicked server may hang rather than exit: TERM, then KILL after 5 s. */
function stop(child: ChildProcess) {
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  killer.unref();
  child.once("exit", () => clearTimeout(killer));
}

/**
 * Where the development server will answer: APP_URL when set, else the host and port given to
 * `npm run dev` (`-p 4000`, `--port=4000`, `-H 127.0.0.1`) or PORT, as server/main.ts reads them.
 */
export function devServerUrl(args: string[], config: Pick<Env, "APP_URL" | "PORT">): string {
  if (config.APP_URL) return new URL(config.APP_URL).origin;
  const { values } = parseArgs({
    args,
    options: { hostname: { type: "string", short: "H" }, port: { type: "string", short: "p" } },
    strict: false,
  });
  const port = typeof values.port === "string" ? values.port : String(config.PORT);
  const host = typeof values.hostname === "string" ? values.hostname : "localhost";
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
