import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "@/dev/free-port";
import { trackProcessGroup } from "./process-groups";
import { appServerArgs } from "./run";

/** The production app server (server/main.ts) as a child process on 127.0.0.1, as tests and the benchmark run it. */
export interface NextServer {
  url: string;
  /** The server's process (the benchmark reads its memory). */
  pid: number;
  stop(): Promise<void>;
  /** SIGKILL at once: the process dies mid-request, as a crash would. */
  kill(): Promise<void>;
  logs(): string;
}

/** The port was taken between choosing it and the server binding it: try another. */
class AddressInUse extends Error {
  override name = "AddressInUse";
}

const BIND_ATTEMPTS = 5;

/**
 * Starts the production build with `env` on top of this process's environment and waits
 * until the API answers. `APP_URL` defaults to the server's own URL (each launch picks a new
 * port); pass `APP_URL: ""` to start without one. The server runs in its own process group
 * so `stop` ends it whole.
 */
export interface LaunchOptions {
  /** Node flags, before the server's own. */
  nodeArgs?: readonly string[];
  /** Server flags (`--workers 1`: supervised, as `npm start` runs it). */
  serverArgs?: readonly string[];
  /**
   * When the server counts as up, from the status its API answers: by default a 2xx; a test
   * of load shedding takes its 503 as the answer of a server that is up.
   */
  ready?: (status: number) => boolean;
  /**
   * A fixed port (the chaos run starts a killed server again where its clients and APP_URL
   * expect it); by default a free one, tried again elsewhere when it was taken meanwhile.
   */
  port?: number;
}

export async function launchNextServer(
  env: Record<string, string>,
  options: LaunchOptions = {},
): Promise<NextServer> {
  // APP_URL names the server's own origin, so the port is chosen before the start; the server
  // binds it itself, and a port someone else took meanwhile means another attempt, not a
  // server on a port it does not own.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchOnce(env, options, options.port ?? (await freePort()));
    } catch (error) {
      if (!(error instanceof AddressInUse) || attempt >= BIND_ATTEMPTS) throw error;
      // A fixed port taken: its last owner may still be letting go of it; wait, then again.
      if (options.port) await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

async function launchOnce(
  env: Record<string, string>,
  {
    nodeArgs = [],
    serverArgs = [],
    ready = (status) => status >= 200 && status < 300,
  }: LaunchOptions,
  port: number,
): Promise<NextServer> {
  let output = "";
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...nodeArgs,
      ...appServerArgs({ ...process.env, ...env }),
      ...(env.NODE_ENV === "test" ? ["--test"] : []),
      "-H",
      "127.0.0.1",
      "-p",
      String(port),
      ...serverArgs,
    ],
    {
      env: {
        ...(process.env as Record<string, string>),
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        ...env,
        APP_URL: env.APP_URL ?? url,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const untrack = trackProcessGroup(child.pid!);
  child.once("exit", untrack);
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
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
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      if (/EADDRINUSE/.test(output)) throw new AddressInUse(`port ${port} is taken`);
      throw new Error(`the app server exited early:\n${output}`);
    }
    if (output.includes("is in use by process")) {
      await stop();
      throw new Error(`the server's embedded database is held by another process:\n${output}`);
    }
    // Only once this child says it listens: an answer on the port before that could come from
    // another process that took the port first.
    if (output.includes("> Ready on")) {
      try {
        const response = await fetch(`${url}/api/v1/jobs?limit=1`);
        if (ready(response.status)) return { url, pid: child.pid!, stop, kill, logs: () => output };
      } catch {
        // not answering yet
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  await stop();
  throw new Error(`the app server did not become ready:\n${output}`);
}
