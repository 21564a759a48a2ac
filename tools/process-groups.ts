// Child process groups that tests and the benchmark start (app servers, the facilitator).
// Each is killed when the process that started it exits, and, under a test run, recorded in
// the run's registry so that its teardown ends any a timed-out hook left running
// (tests/setup/processes.ts).
import fs from "node:fs";

export const PROCESS_REGISTRY_ENV = "TEST_PROCESS_REGISTRY";

/** Registers the detached group led by `pid`; returns the function to call once it is ended. */
export function trackProcessGroup(pid: number): () => void {
  const registry = process.env[PROCESS_REGISTRY_ENV];
  if (registry) fs.appendFileSync(registry, `${pid}\n`);
  const onExit = () => killGroup(pid);
  process.once("exit", onExit);
  return () => process.off("exit", onExit);
}

/** SIGKILLs every group recorded in `registry` that is still alive; returns how many. */
export function killRecordedGroups(registry: string): number {
  if (!fs.existsSync(registry)) return 0;
  const pids = fs.readFileSync(registry, "utf8").split("\n").filter(Boolean).map(Number);
  return pids.filter(killGroup).length;
}

function killGroup(pid: number): boolean {
  try {
    process.kill(-pid, "SIGKILL");
    return true;
  } catch {
    return false; // already gone
  }
}
