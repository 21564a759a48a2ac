// npm test: builds the production app once, then runs every suite against real databases,
// real HTTP and the local chain: Vitest (unit, integration, HTTP) and Playwright (browser).
// SKIP_BUILD=1 reuses an existing build; TEST_DATABASE_URL adds the PostgreSQL runs.
import fs from "node:fs";
import path from "node:path";
import { nextBin, run } from "./run";

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  /** Passed only on a retry: counted as failed (there are no retries; this is a guard). */
  flaky: number;
}

async function main() {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  const reportDir = path.resolve("test-results");
  fs.mkdirSync(reportDir, { recursive: true });

  // Where the run's time goes (CI holds the whole run under 30 minutes).
  const phases: string[] = [];
  const timed = async <T>(name: string, phase: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await phase();
    } finally {
      phases.push(`${name} ${Math.round((Date.now() - started) / 1000)} s`);
    }
  };

  if (process.env.SKIP_BUILD !== "1") {
    console.log("\n› next build");
    const code = await timed("build", () => run(nextBin, ["build"], { env }));
    if (code !== 0) return code;
  }

  console.log("\n› vitest run");
  const vitestReport = path.join(reportDir, "vitest.json");
  const vitestCode = await timed("vitest", () =>
    run(
      "node_modules/.bin/vitest",
      [
        "run",
        "--reporter=default",
        "--reporter=json",
        `--outputFile.json=${vitestReport}`,
        ...process.argv.slice(2),
      ],
      { env },
    ),
  );

  let playwrightCode = 0;
  let playwright: Counts | undefined;
  const hasE2e =
    fs.existsSync("e2e") && fs.readdirSync("e2e").some((file) => file.endsWith(".spec.ts"));
  if (hasE2e && process.env.SKIP_E2E !== "1") {
    console.log("\n› playwright test");
    const playwrightReport = path.join(reportDir, "playwright.json");
    playwrightCode = await timed("playwright", () =>
      run("node_modules/.bin/playwright", ["test", "--reporter=list,json"], {
        env: { ...env, PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport },
      }),
    );
    playwright = readPlaywright(playwrightReport);
  }

  const vitest = readVitest(vitestReport);
  console.log(`\n› time: ${phases.join(", ")}`);
  const slowest = slowestVitestFiles(vitestReport, 8);
  if (slowest) console.log(`› slowest vitest files: ${slowest}`);
  console.log("");
  const line = (counts: Counts) =>
    `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped` +
    (counts.flaky > 0 ? `, ${counts.flaky} flaky (failed)` : "");
  if (vitest) console.log(`vitest: ${line(vitest)}`);
  if (playwright) console.log(`playwright: ${line(playwright)}`);
  const all = [vitest, playwright].filter(Boolean) as Counts[];
  const sum = (key: keyof Counts) => all.reduce((total, counts) => total + counts[key], 0);
  console.log(
    line({
      passed: sum("passed"),
      failed: sum("failed"),
      skipped: sum("skipped"),
      flaky: sum("flaky"),
    }),
  );
  if (vitestCode !== 0) return vitestCode;
  if (playwrightCode !== 0) return playwrightCode;
  // A flaky test is a failing test, whatever the runner's own exit code says.
  if (sum("flaky") > 0) {
    console.error("flaky tests fail the run: a test must pass on its first and only try");
    return 1;
  }
  return 0;
}

function readVitest(file: string): Counts | undefined {
  if (!fs.existsSync(file)) return undefined;
  const report = JSON.parse(fs.readFileSync(file, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
    testResults: { status: string; assertionResults: { status: string }[] }[];
  };
  // A file that failed outside any test (its beforeAll, its import) fails no test of its own:
  // its tests count as skipped. It counts here as one failure, so the summary never says 0.
  const brokenFiles = report.testResults.filter(
    (result) =>
      result.status === "failed" && !result.assertionResults.some((a) => a.status === "failed"),
  ).length;
  // Vitest retries nothing (`retry: 0` in vitest.config.mts): each result is a first try.
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + brokenFiles,
    skipped: report.numPendingTests + report.numTodoTests,
    flaky: 0,
  };
}

/** The `count` vitest files that took longest, with their seconds (from the JSON report). */
function slowestVitestFiles(file: string, count: number): string | undefined {
  if (!fs.existsSync(file)) return undefined;
  const report = JSON.parse(fs.readFileSync(file, "utf8")) as {
    testResults: { name: string; startTime: number; endTime: number }[];
  };
  return [...report.testResults]
    .sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime))
    .slice(0, count)
    .map((result) => {
      const seconds = Math.round((result.endTime - result.startTime) / 1000);
      return `${path.relative(process.cwd(), result.name)} ${seconds} s`;
    })
    .join(", ");
}

function readPlaywright(file: string): Counts | undefined {
  if (!fs.existsSync(file)) return undefined;
  const stats = JSON.parse(fs.readFileSync(file, "utf8")).stats;
  // "flaky": failed, then passed on a retry. Not a pass.
  return {
    passed: stats.expected,
    failed: stats.unexpected,
    skipped: stats.skipped,
    flaky: stats.flaky,
  };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
