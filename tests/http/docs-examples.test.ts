// The curl examples of docs/api.md, run as written: every ```sh block of the page, in order,
// as one bash script against a server on the local chain, with only the reader's own values
// replaced: `BASE` (the server) and `HOOK_URL` (a webhook receiver on loopback, which the
// server, NODE_ENV=test, may reach with WEBHOOK_ALLOW_LOOPBACK). Each curl's status is logged beside its arguments; every answer must be a
// success but the one the walk-through shows on purpose (the settle resource's 402
// challenge). A doc line that stops matching the API fails here.
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GANACHE_PRIVATE_KEYS, mintTestUsdc } from "@/dev/local-chain";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

const DOC = "docs/api.md";
const DOC_BASE = "BASE=http://localhost:3000";
const DOC_HOOK_URL = "HOOK_URL=https://bot.example.com/hooks";

/** The page's sh blocks, in order. */
export function shellExamples(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

// Each curl of the examples goes through this: its answer printed as curl prints it, its
// status and URL (never its cookie or token) appended to $CURL_LOG.
const CURL_LOGGER = [
  "curl() {",
  "  local out status",
  "  out=$(command curl -w '\\n__status__%{http_code}' \"$@\") || return $?",
  "  status=${out##*__status__}",
  "  printf '%s' \"${out%$'\\n'__status__*}\"",
  '  printf \'%s %s\\n\' "$status" "$*" >> "$CURL_LOG"',
  "}",
].join("\n");

let server: RunningServer;
let receiver: http.Server;
const received: string[] = [];
let cleanup: () => Promise<void>;
let work: string;

beforeAll(async () => {
  const database = await prepareServerDatabase("pglite");
  cleanup = database.cleanup;
  server = await startServer({
    ...database.env,
    NODE_ENV: "test",
    WEBHOOK_ALLOW_LOOPBACK: "true",
  });
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push(body);
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  // The walk-through's poster (demo account 2) pays its 20 USDC bid.
  const poster = privateKeyToAccount(GANACHE_PRIVATE_KEYS[2] as `0x${string}`);
  await mintTestUsdc(server.env.CHAIN_RPC_URL!, poster.address, 20_000_000n);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "docs-examples-"));
});

afterAll(async () => {
  receiver?.close();
  await server?.stop();
  await cleanup?.();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe(`the sh examples of ${DOC}`, () => {
  it("find the walk-through and point only BASE at the test server", () => {
    const blocks = shellExamples(fs.readFileSync(DOC, "utf8"));
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks[0]).toContain(DOC_BASE);
    expect(blocks.some((block) => block.includes(DOC_HOOK_URL))).toBe(true);
  });

  it("are the only curl examples of the docs (no other block or page holds one unrun)", () => {
    const pages = [
      "README.md",
      "CONTRIBUTING.md",
      ...fs
        .readdirSync("docs", { recursive: true })
        .map(String)
        .filter((file) => file.endsWith(".md"))
        .map((file) => path.join("docs", file)),
    ];
    for (const page of pages) {
      const text = fs.readFileSync(page, "utf8");
      const run = page === DOC ? shellExamples(text).join("\n") : "";
      const blocks = [...text.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
      const unrun = blocks.filter((block) => /\bcurl\s/.test(block) && !run.includes(block));
      expect(unrun, page).toEqual([]);
    }
  });

  it("run in order, every answer a success but the walk-through's 402 challenge", async () => {
    const script = shellExamples(fs.readFileSync(DOC, "utf8"))
      .join("\n")
      .replace(DOC_BASE, `BASE=${server.url}`)
      .replace(
        DOC_HOOK_URL,
        `HOOK_URL=http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      );
    const file = path.join(work, "examples.sh");
    const log = path.join(work, "curl.log");
    fs.writeFileSync(file, `set -euo pipefail\n${CURL_LOGGER}\n${script}`);
    const run = promisify(execFile)("bash", [file], {
      env: { ...process.env, CURL_LOG: log },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    // A step that broke the script: say which call came last, and what it printed.
    const { stdout } = await run.catch((error: { stdout?: string; stderr?: string }) => {
      const calls = fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "(no call)";
      throw new Error(
        `the examples stopped.\ncalls:\n${calls}\nstdout:\n${error.stdout?.slice(-2000)}\nstderr:\n${error.stderr?.slice(-2000)}`,
      );
    });
    const calls = fs
      .readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => ({ status: Number(line.slice(0, 3)), url: line.slice(4) }));
    const failures = calls.filter(
      ({ status, url }) =>
        !(status >= 200 && status < 300) && !(status === 402 && url.includes("/settle?")),
    );
    expect(failures).toEqual([]);
    expect(calls.filter(({ status }) => status === 402)).toHaveLength(1);
    // The walk-through reached its end: the review it posted is listed.
    expect(stdout).toContain("Clear and on time");
    expect(calls.length).toBeGreaterThanOrEqual(15);
    // The webhook example's test delivery reached the receiver.
    await expect.poll(() => received.some((body) => body.includes("webhook.test"))).toBe(true);
  }, 150_000);
});
