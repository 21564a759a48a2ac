// Our facilitator service (`npm run facilitator`) as its own process, for tests that run
// several app servers or kill the facilitator mid-burst.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { LOCAL_FACILITATOR_ENV } from "@/dev/local-chain";
import { trackProcessGroup } from "@/tools/process-groups";
import { tsxArgs, tsxBin } from "@/tools/run";

export const TEST_FACILITATOR_SECRET = "test-facilitator-secret-0123456789abcdef";

export interface FacilitatorProcess {
  url: string;
  /** The process group's leader (the chaos run samples its memory). */
  pid: number;
  logs(): string;
  /** SIGKILL: the service dies mid-request, as a crash would. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startFacilitatorProcess(
  env: Record<string, string>,
): Promise<FacilitatorProcess> {
  let output = "";
  const child: ChildProcess = spawn(path.resolve(tsxBin), [...tsxArgs, "scripts/facilitator.ts"], {
    env: {
      ...process.env,
      ...LOCAL_FACILITATOR_ENV,
      FACILITATOR_PORT: "0",
      FACILITATOR_SECRET: TEST_FACILITATOR_SECRET,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    // tsx runs the script in a child of its own: signal the whole group.
    detached: true,
  });
  const untrack = trackProcessGroup(child.pid!);
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      untrack();
      resolve();
    }),
  );
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const match = /on (http:\/\/[^\s]+)/.exec(output);
    if (match) {
      return {
        url: match[1]!,
        pid: child.pid!,
        logs: () => output,
        kill: () => end("SIGKILL"),
        stop: () => end("SIGTERM"),
      };
    }
    if (child.exitCode !== null) throw new Error(`the facilitator exited early:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await end("SIGKILL");
  throw new Error(`the facilitator did not start:\n${output}`);
}
