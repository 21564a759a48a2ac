// The development session secret (no SESSION_SECRET): processes started at once on one .data/
// (a dev server and a script) agree on one secret, written whole, and keep it.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tsxArgs, tsxBin } from "@/tools/run";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "session-secret-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A process that prints its secret, started in `dir` (the secret's file is .data/ there). */
function secretOfAProcess(startAt = 0): Promise<string> {
  const script = path.join(dir, "print-secret.mts");
  // Each process loaded (its configuration read), then all asking at the same instant (a busy
  // wait on the clock).
  fs.writeFileSync(
    script,
    `import { getSessionSecret } from ${JSON.stringify(path.resolve("lib/auth/secret.ts"))};\n` +
      `import { getConfig } from ${JSON.stringify(path.resolve("lib/platform/config.ts"))};\n` +
      "getConfig();\n" +
      "while (Date.now() < Number(process.env.START_AT)) {}\n" +
      "console.log(getSessionSecret());\n",
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "development",
    START_AT: String(startAt),
  };
  delete env.SESSION_SECRET;
  return new Promise((resolve, reject) => {
    execFile(
      path.resolve(tsxBin),
      [...tsxArgs, "--tsconfig", path.resolve("tsconfig.json"), script],
      { cwd: dir, env, timeout: 60_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error}: ${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

describe("the development session secret", () => {
  it("four processes starting at once on an empty .data/ agree on one secret, kept in the file", async () => {
    const startAt = Date.now() + 10_000;
    const secrets = await Promise.all([1, 2, 3, 4].map(() => secretOfAProcess(startAt)));
    expect(secrets[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(secrets)).toEqual(new Set([secrets[0]]));
    const file = path.join(dir, ".data", "session-secret");
    expect(fs.readFileSync(file, "utf8")).toBe(secrets[0]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // No temporary file left behind.
    expect(fs.readdirSync(path.join(dir, ".data"))).toEqual(["session-secret"]);
    expect(await secretOfAProcess()).toBe(secrets[0]);
  }, 120_000);
});
