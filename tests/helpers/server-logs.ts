// A suite fails when a server under test logged an error no code path expected: a route that
// threw past lib/http's mapping ("Unhandled error in API route"), the app server's own
// fallback ("Request handler failed"), Next.js's error marker, or a process-level uncaught
// exception or rejection. Checked after every test, on the output that test produced, so the
// failure names the test that caused it.
import { afterEach, expect } from "vitest";
import { type RunningServer, startedServers } from "./server";

export const UNHANDLED_ERROR_LINE =
  /Unhandled error|Request handler failed|uncaughtException|unhandledRejection|triggerUncaughtException|^\s*⨯ /;

/**
 * Accept skipped the chain's receipt check because the chain did not answer: in a suite whose
 * chain is up, that means accept passed without the check it claims to make.
 */
export const RECEIPT_CHECK_SKIPPED = /receipt check skipped/;

/**
 * Registers an afterEach that fails the test when any server this file started logged a
 * line matching UNHANDLED_ERROR_LINE (or one of `alsoForbid`) since the previous check.
 */
export function failOnServerErrors(options: { alsoForbid?: RegExp[] } = {}): void {
  const patterns = [UNHANDLED_ERROR_LINE, ...(options.alsoForbid ?? [])];
  const checked = new Map<RunningServer, number>();
  afterEach(() => {
    const offending: string[] = [];
    for (const server of startedServers) {
      const logs = server.logs();
      const fresh = logs.slice(checked.get(server) ?? 0);
      checked.set(server, logs.length);
      const lines = fresh.split("\n");
      lines.forEach((line, index) => {
        if (patterns.some((pattern) => pattern.test(line))) {
          // The line and what follows it (the stack), for the report.
          offending.push(`${server.url}: ${lines.slice(index, index + 6).join("\n")}`);
        }
      });
    }
    expect(offending, "the server under test logged an unexpected error").toEqual([]);
  });
}
