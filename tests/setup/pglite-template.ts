// Vitest global setup: one migrated PGlite folder per run. Test databases start as copies of
// it (tests/helpers/server.ts) instead of each running initdb and every migration again.
// PGLITE_TEMPLATE_DIR names one made beforehand (the mutation runner's, shared by its runs).
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
  // A template made once for many runs (npm run test:mutations): used as it is, kept.
  const given = process.env.PGLITE_TEMPLATE_DIR;
  if (given && fs.existsSync(given)) {
    project.provide("pgliteTemplateDir", given);
    return () => {};
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "marketplace-template-"));
  const dir = path.join(root, "pglite");
  await migrateTarget({ kind: "pglite", dataDir: dir });
  project.provide("pgliteTemplateDir", dir);
  return () => fs.rmSync(root, { recursive: true, force: true });
}
