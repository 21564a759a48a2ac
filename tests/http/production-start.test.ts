// A production start refuses a configuration it cannot run safely, before serving anything:
// missing or bad secrets and settings, plain `next start`, and test or development switches
// that do not match the start.
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appServerArgs } from "@/tools/run";
import { prepareServerDatabase, startServer, TEST_SESSION_SECRET } from "@/tests/helpers/server";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

describe("production start", () => {
  it("refuses to start without SESSION_SECRET or APP_URL, or with bad values, with a clear message", async () => {
    const database = await prepareServerDatabase("pglite");
    try {
      await expect(startServer({ ...database.env, SESSION_SECRET: "" })).rejects.toThrow(
        /SESSION_SECRET is not set/,
      );
      await expect(startServer({ ...database.env, SESSION_SECRET: "too-short" })).rejects.toThrow(
        /SESSION_SECRET: must be at least 32 characters/,
      );
      await expect(startServer({ ...database.env, APP_URL: "" })).rejects.toThrow(
        /APP_URL is not set/,
      );
      await expect(startServer({ ...database.env, TRUST_PROXY_HOPS: "one" })).rejects.toThrow(
        /TRUST_PROXY_HOPS: must be a whole number/,
      );
      await expect(startServer({ ...database.env, REDIS_URL: "http://x" })).rejects.toThrow(
        /REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/,
      );
    } finally {
      await database.cleanup();
    }
  });

  it("refuses protected-payment settings it cannot honour: a fee with nowhere to go, a bad admin list", async () => {
    const database = await prepareServerDatabase("pglite");
    try {
      await expect(startServer({ ...database.env, PLATFORM_FEE_BPS: "100" })).rejects.toThrow(
        /PLATFORM_FEE_BPS above 0 needs PLATFORM_FEE_RECEIVER/,
      );
      await expect(startServer({ ...database.env, ADMIN_ADDRESSES: "0x12" })).rejects.toThrow(
        /ADMIN_ADDRESSES: must be comma-separated/,
      );
    } finally {
      await database.cleanup();
    }
  });

  it("refuses to run as plain `next start`, which would take client addresses from headers", async () => {
    const database = await prepareServerDatabase("pglite");
    try {
      // It must refuse before serving anything; port 0 lets the kernel pick one if it did not.
      const port = 0;
      const child = spawn(
        path.resolve("node_modules/.bin/next"),
        ["start", "-H", "127.0.0.1", "-p", String(port)],
        {
          env: {
            ...process.env,
            ...database.env,
            NODE_ENV: "production",
            SESSION_SECRET: TEST_SESSION_SECRET,
            APP_URL: `http://127.0.0.1:${port}`,
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      const code = await new Promise((resolve) => child.once("exit", resolve));
      expect(code).not.toBe(0);
      expect(output).toMatch(/start it with `npm start` or `npm run dev`/);
    } finally {
      await database.cleanup();
    }
  });

  it.each<[string, { NODE_ENV: "test" | "production" }, string[], RegExp]>([
    // NODE_ENV alone never turns a production start into a test server (which skips
    // production's refusals): that takes --test, on loopback.
    [
      "NODE_ENV=test without --test",
      { NODE_ENV: "test" },
      ["-H", "127.0.0.1"],
      /NODE_ENV=test does not match a production start/,
    ],
    [
      "--test beyond loopback",
      { NODE_ENV: "test" },
      ["--test", "-H", "0.0.0.0"],
      /listens on loopback only/,
    ],
    [
      "NODE_ENV=production with --dev",
      { NODE_ENV: "production" },
      ["--dev", "-H", "127.0.0.1"],
      /does not match a development start/,
    ],
  ])("refuses %s", async (_name, env, args, message) => {
    const child = spawn(process.execPath, [...appServerArgs(), ...args, "-p", "0"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(output).toMatch(message);
  });
});
