// Vitest global setup: a registry of the app servers and facilitators the run starts; the
// teardown ends any still running (a hook that timed out mid-start cannot stop what it had
// not yet been handed).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { killRecordedGroups, PROCESS_REGISTRY_ENV } from "@/tools/process-groups";

export default function setup() {
  const registry = path.join(
    fs.mkdtempSync(path.join(os.tmpdir(), "marketplace-processes-")),
    "groups",
  );
  process.env[PROCESS_REGISTRY_ENV] = registry;
  return () => {
    const killed = killRecordedGroups(registry);
    if (killed > 0) console.warn(`teardown: ended ${killed} test process group(s) left running`);
    fs.rmSync(path.dirname(registry), { recursive: true, force: true });
  };
}
