// The chaos run's own dependencies, each on a port fixed for the run so that a restarted one
// comes back where the app servers look for it: the local chain as `npm run chain` runs it
// (scripts/chain.ts, its journal in the run's folder: a restarted node is the same chain) and
// a private Redis (never the machine's shared one). Both run as detached process groups,
// tracked so that they die with this process (tools/process-groups.ts).
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { trackProcessGroup } from "../process-groups";
import { tsxArgs, tsxBin } from "../run";

export interface ManagedProcess {
  readonly name: string;
  readonly port: number;
  /** The running process group's leader, or undefined while stopped. */
  pid(): number | undefined;
  start(): Promise<void>;
  /** SIGTERM (graceful) or SIGKILL (a crash); resolves once the group is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Everything every incarnation printed. */
  logs(): string;
}

/** A detached child group started by `launch`, up once `ready(output)` says so. */
export function managedProcess(
  name: string,
  port: number,
  launch: () => ChildProcess,
  ready: (output: string) => boolean,
  timeoutMs = 60_000,
): ManagedProcess {
  let child: ChildProcess | undefined;
  let all = "";
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once("exit", resolve));
    const kill = (sig: NodeJS.Signals) => {
      try {
        process.kill(-current.pid!, sig);
      } catch {
        // already gone
      }
    };
    kill(signal);
    const timer = new Promise((resolve) => setTimeout(resolve, 15_000));
    if ((await Promise.race([exited.then(() => "exited"), timer])) !== "exited") {
      kill("SIGKILL");
      await exited;
    }
    child = undefined;
  };
  return {
    name,
    port,
    pid: () => child?.pid,
    logs: () => all,
    stop,
    async start() {
      if (child) throw new Error(`${name} is already running`);
      let output = "";
      const started = launch();
      child = started;
      const untrack = trackProcessGroup(started.pid!);
      started.once("exit", untrack);
      const take = (chunk: Buffer) => {
        output += chunk;
        all += chunk;
      };
      started.stdout?.on("data", take);
      started.stderr?.on("data", take);
      const deadline = Date.now() + timeoutMs;
      while (!ready(output)) {
        if (started.exitCode !== null || started.signalCode !== null) {
          child = undefined;
          throw new Error(`${name} exited while starting:\n${output.slice(-2000)}`);
        }
        if (Date.now() > deadline) {
          await stop("SIGKILL");
          throw new Error(`${name} did not start within ${timeoutMs / 1000} s:\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}

/** `npm run chain --port P --data-dir D`: the node replays D's journal when started again. */
export function chainProcess(port: number, dataDir: string): ManagedProcess {
  return managedProcess(
    "chain",
    port,
    () =>
      spawn(
        path.resolve(tsxBin),
        [...tsxArgs, "scripts/chain.ts", "--port", String(port), "--data-dir", dataDir],
        { stdio: ["ignore", "pipe", "pipe"], detached: true, env: { ...process.env } },
      ),
    (output) => output.includes("Ctrl-C to stop"),
  );
}

/** A private redis-server that keeps nothing on disk (it comes back empty, as after a crash). */
export function redisProcess(port: number): ManagedProcess {
  return managedProcess(
    "redis",
    port,
    () =>
      spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        { stdio: ["ignore", "pipe", "pipe"], detached: true },
      ),
    (output) => output.includes("Ready to accept connections"),
  );
}

/**
 * A block at least every `everyMs`, as a real chain makes them whether or not anyone pays
 * (Base: every 2 s). The local chain mines only when a transaction comes; an idle one never
 * reaches the final block past a lost authorization's validBefore that lets the reconciler
 * give it up. Mines only when the newest block is older than that, so that it adds no block
 * while transactions keep coming (each block moves the local clock at least a second).
 */
export function blockHeartbeat(rpcUrl: string, everyMs = 2_000): () => void {
  const rpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(5_000),
    });
    return ((await response.json()) as { result?: { timestamp?: string } }).result;
  };
  const timer = setInterval(() => {
    void (async () => {
      const head = await rpc("eth_getBlockByNumber", ["latest", false]);
      if (Number(head?.timestamp ?? 0) * 1000 < Date.now() - everyMs) await rpc("evm_mine");
    })().catch(() => {}); // the chain is down (a fault): the next beat tries again
  }, everyMs);
  return () => clearInterval(timer);
}
