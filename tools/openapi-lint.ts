// npm run openapi:lint: the OpenAPI document as outside tools see it, linted by Redocly CLI
// with its recommended rules (redocly.yaml): no error and no warning, or the run fails.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { apiDocument } from "@/lib/api/openapi/document";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openapi-"));
const file = path.join(dir, "openapi.json");
fs.writeFileSync(file, JSON.stringify(apiDocument(), null, 2));
const result = spawnSync(
  "node_modules/.bin/redocly",
  ["lint", file, "--config", "redocly.yaml", "--max-problems", "200"],
  {
    stdio: "inherit",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  },
);
fs.rmSync(dir, { recursive: true, force: true });
process.exit(result.status ?? 1);
