// The development server's launcher: a Turbopack panic (a corrupted persistent cache) is
// explained, the cache cleared and the server started again, once; any other stop is
// explained; and the address printed is the one the server listens on.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/platform/config";
import { devServerUrl, runDevServer } from "./dev-server";

/** A stand-in dev server: `node -e script`, run with a counter file so each start differs. */
function fakeServer(script: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "dev-server-"));
  const cacheDir = path.join(dir, ".next", "dev");
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(path.join(cacheDir, "cache.sst"), "corrupt");
  const counter = path.join(dir, "starts");
  const lines: string[] = [];
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  const run = () =>
    runDevServer({
      command: process.execPath,
      args: ["-e", script, counter],
      env: { ...process.env },
      cacheDir,
      log: (line) => lines.push(line),
      stdout: output,
      stderr: output,
    });
  return { run, cacheDir, lines, printed: () => printed };
}

// Starts count in a file; the first start panics as Turbopack did, the next ones as the script says.
const PANIC = `thread 'tokio-runtime-worker' panicked at turbopack/crates/turbo-tasks-backend/src/backend/mod.rs:1:1:\\ntask is missing in memory or persistent storage`;
const counted = (then: string) => `
  const fs = require("fs"); const file = process.argv[1];
  const n = fs.existsSync(file) ? Number(fs.readFileSync(file, "utf8")) + 1 : 1;
  fs.writeFileSync(file, String(n));
  if (n === 1) { process.stderr.write("${PANIC}\\n"); setInterval(() => {}, 1000); }
  else { ${then} }`;

describe("npm run dev's server launcher", () => {
  it("clears the corrupted cache after a Turbopack panic and starts again, once", async () => {
    const server = fakeServer(counted(`console.log("Ready on 2nd start"); process.exit(0);`));
    expect(await server.run()).toBe(0);
    expect(server.printed()).toContain("task is missing in memory or persistent storage");
    expect(server.printed()).toContain("Ready on 2nd start");
    expect(existsSync(server.cacheDir)).toBe(false);
    expect(server.lines.join("\n")).toMatch(
      /Turbopack .* panicked: its persistent cache in .* is corrupted/,
    );
  });

  it("gives up with instructions when it panics again after clearing", async () => {
    const server = fakeServer(`process.stderr.write("${PANIC}\\n"); setInterval(() => {}, 1000);`);
    expect(await server.run()).toBe(1);
    expect(server.lines.join("\n")).toMatch(/panicked again .* delete the whole .next folder/);
  });

  it("says how it stopped when it dies of something else, keeping the cache", async () => {
    const server = fakeServer(
      `console.error("Error: listen EADDRINUSE :::3000"); process.exit(3);`,
    );
    expect(await server.run()).toBe(3);
    expect(server.lines.join("\n")).toMatch(/stopped \(exit code 3\); its output above says why/);
    expect(existsSync(server.cacheDir)).toBe(true);
  });

  it.each([
    [[], {}, "http://localhost:3000"],
    [["-p", "4000"], {}, "http://localhost:4000"],
    [["--port=4001", "-H", "127.0.0.1"], {}, "http://127.0.0.1:4001"],
    [[], { PORT: "5000" }, "http://localhost:5000"],
    [["-p", "4000"], { APP_URL: "https://market.example" }, "https://market.example"],
  ])("prints the address it listens on: %j %j", (args, env, url) => {
    expect(devServerUrl(args, parseEnv({ NODE_ENV: "development", ...env }))).toBe(url);
  });
});
