// Vitest global setup: one migrated PGlite folder per run. Test databases start as copies of
// it (tests/helpers/server.ts) instead of each running initdb and every migration again.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { migrateTarget } from "@/lib/db/setup";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplateDir: string;
  }
}

export default async function setup(project: TestProject) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "marketplace-template-"));
  const dir = path.join(root, "pglite");
  await migrateTarget({ kind: "pglite", dataDir: dir });
  project.provide("pgliteTemplateDir", dir);
  return () => fs.rmSync(root, { recursive: true, force: true });
}
