// npm run test:mutations: proves that the tests of the money and limit rules fail without
// their rule. A rule is a region of the source between \`// mutant: <id>\` and \`// mutant end\`
// (the markers move with the code); each mutation below deletes (or weakens) one region in a
// copy of the source, runs the one test that names the rule, and expects it to FAIL; then the
// file is restored. The working tree is never touched: the copy lives in a temporary folder.
//
// Before any mutation, every chosen test runs once on the unchanged copy and must pass (a
// test that already fails would "kill" every mutation). A marker found other than once, or a
// marker without its entry here, is an error, not a pass.
//
// Prints a table (rule, test, result) and exits non-zero if any mutation survived.
// MUTATIONS=<substring> runs only the rules whose name contains it. Integration-project
// entries that need PostgreSQL run only with TEST_DATABASE_URL (always set in CI).
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateTarget } from "@/lib/db/setup";

interface Mutation {
  /** The region's marker in the source: \`// mutant: <id>\` … \`// mutant end\`. */
  id: string;
  rule: string;
  /** What the region's lines become (default: nothing, the rule deleted). */
  replace?: string;
  test: { project: "unit" | "integration"; file: string; name: string };
  needsPostgres?: boolean;
}

const MARKETPLACE = "lib/marketplace/marketplace.test.ts";
const SETTLE = "lib/payments/settle/settle.test.ts";
const unit = (file: string, name: string) => ({ project: "unit" as const, file, name });

export const MUTATIONS: Mutation[] = [
  {
    id: "deliver-5-mib-per-file-cap",
    rule: "deliver: 5 MiB per-file cap",
    replace: ",\n",
    test: unit(MARKETPLACE, "refuses one file of 5 MiB + 1 byte"),
  },
  {
    id: "deliver-10-mib-total-cap",
    rule: "deliver: 10 MiB total cap",
    test: unit(MARKETPLACE, "refuses 10 MiB + 1 byte in all"),
  },
  {
    id: "accept-paid-by-the-poster",
    rule: "accept: paid by the poster (wrong payer)",
    test: unit(MARKETPLACE, "paid by someone other than the poster"),
  },
  {
    id: "accept-the-bid-s-amount",
    rule: "accept: the bid's amount (underpaid)",
    test: unit(MARKETPLACE, "underpaid: the recorded amount is below the bid"),
  },
  {
    id: "accept-paid-to-the-wallet-the-bid-was-made-with",
    rule: "accept: paid to the wallet the bid was made with",
    test: unit(MARKETPLACE, "paid to another wallet than the bid's payee"),
  },
  {
    id: "accept-the-configured-network",
    rule: "accept: the configured network",
    test: unit(MARKETPLACE, "made on another network"),
  },
  {
    id: "accept-the-configured-asset",
    rule: "accept: the configured asset",
    test: unit(MARKETPLACE, "paid in another asset"),
  },
  {
    id: "accept-the-settlement-of-this-proposal",
    rule: "accept: the settlement of this proposal (other proposal)",
    test: unit(MARKETPLACE, "a settlement of another proposal of the same job"),
  },
  {
    id: "accept-the-chain-s-receipt-agrees-with-the-ledger",
    rule: "accept: the chain's receipt agrees with the ledger",
    test: unit(MARKETPLACE, "a ledger hash whose receipt is not a transfer of this payment"),
  },
  {
    id: "accept-the-receipt-is-this-settlement-s-authorization",
    rule: "accept: the receipt is this settlement's authorization",
    test: unit(MARKETPLACE, "a ledger hash naming another payment with the same payer"),
  },
  {
    id: "reject-live-settlement",
    rule: "reject: refused with a succeeded settlement",
    replace: "    void payment;\n",
    test: unit(MARKETPLACE, "refuses to reject a paid proposal"),
  },
  {
    id: "reject-live-settlement",
    rule: "reject: refused with a pending settlement",
    replace: "    void payment;\n",
    test: unit(MARKETPLACE, "refuses to reject a proposal whose payment is still settling"),
  },
  {
    id: "settle-a-used-authorization-on-another-job",
    rule: "settle: a used authorization on another job (replay)",
    test: unit(SETTLE, "refuses a used authorization sent to another job"),
  },
  {
    id: "settle-the-same-signature-again-is-an-idempotent-retry",
    rule: "settle: the same signature again is an idempotent retry",
    test: unit(SETTLE, "the same header again answers the same hash"),
  },
  {
    id: "settle-a-paid-job-is-refused",
    rule: "settle: a paid job is refused (409 already_paid)",
    test: unit(SETTLE, "the same header again answers the same hash"),
  },
  {
    id: "settle-a-job-that-is-not-open",
    rule: "settle: a job that is not open (409 job_not_open)",
    test: unit(SETTLE, "refuses a job that is not open"),
  },
  {
    id: "settle-the-payer-is-the-poster",
    rule: "settle: the payer is the poster (wrong payer)",
    test: unit(SETTLE, "a payer who is not the poster"),
  },
  {
    id: "settle-exactly-the-bid",
    rule: "settle: exactly the bid (underpaid)",
    test: unit(SETTLE, "refuses a wrong amount with a 402"),
  },
  {
    id: "settle-the-configured-network",
    rule: "settle: the configured network",
    test: unit(SETTLE, "refuses another network before asking the facilitator"),
  },
  {
    id: "settle-the-configured-asset",
    rule: "settle: the configured asset",
    test: unit(SETTLE, "refuses another asset before asking the facilitator"),
  },
  {
    id: "settle-a-malformed-payment-signature-is-400-invalid-payload",
    rule: "settle: a malformed PAYMENT-SIGNATURE is 400 invalid_payload",
    test: unit(SETTLE, "answers a malformed header"),
  },
  {
    id: "sign-in-an-expired-nonce-is-refused",
    rule: "sign-in: an expired nonce is refused",
    replace: "    where: { nonce: message.nonce, usedAt: null },\n",
    test: unit("lib/auth/siwe.test.ts", "refuses a nonce past its expiry"),
  },
  {
    id: "lists-the-cursor-breaks-createdat-ties-by-id",
    rule: "lists: the cursor breaks createdAt ties by id",
    test: unit(MARKETPLACE, "list pages through rows created at the same instant"),
  },
  {
    id: "migrations-the-runner-s-advisory-lock",
    rule: "migrations: the runner's advisory lock",
    test: {
      project: "integration",
      file: "tests/db/migrate-processes.test.ts",
      name: "is safe from two processes at once on PostgreSQL",
    },
    needsPostgres: true,
  },
];

interface RunResult {
  passed: string[];
  failed: string[];
  code: number | null;
  seconds: number;
  log: string;
}

const ROOT = process.cwd();
const RUN_TIMEOUT_MS = 300_000;

async function main(): Promise<number> {
  const only = process.env.MUTATIONS;
  const selected = MUTATIONS.filter((m) => !only || m.rule.includes(only));
  const skipped = selected.filter((m) => m.needsPostgres && !process.env.TEST_DATABASE_URL);
  const mutations = selected.filter((m) => !skipped.includes(m));
  const started = Date.now();
  // Every region must be found, once, before anything runs; no marker may lack its entry.
  const regions = findRegions();
  const problems = [
    ...mutations.flatMap((m) => {
      const found = regions.get(m.id) ?? [];
      return found.length === 1
        ? []
        : [`${m.rule}: marker "mutant: ${m.id}" found ${found.length}×`];
    }),
    ...[...regions.keys()]
      .filter((id) => !MUTATIONS.some((m) => m.id === id))
      .map((id) => `marker "mutant: ${id}" has no entry in tools/mutations.ts`),
  ];
  if (problems.length > 0) {
    console.error(problems.join("\n"));
    return 2;
  }
  const workers = Math.max(1, Number(process.env.MUTATION_WORKERS ?? 2));
  const copies = Array.from({ length: workers }, makeCopy);
  // One migrated PGlite template for every run (each run copies it; none changes it).
  const template = path.join(copies[0]!, ".mutation-pglite-template");
  await migrateTarget({ kind: "pglite", dataDir: template });
  process.env.PGLITE_TEMPLATE_DIR = template;
  try {
    // Baseline: each chosen test passes on the unchanged copy (one run per test file).
    const byFile = new Map<string, Mutation[]>();
    for (const m of mutations) byFile.set(m.test.file, [...(byFile.get(m.test.file) ?? []), m]);
    const baselineOk = await inParallel(copies, [...byFile], async (workCopy, [file, group]) => {
      const names = [...new Set(group.map((m) => m.test.name))];
      const result = await runTests(workCopy, group[0]!.test.project, file, names);
      const missing = names.filter((name) => !result.passed.some((full) => full.includes(name)));
      console.log(
        `baseline ${file}: ${result.passed.length} passed, ${result.failed.length} failed (${result.seconds}s)`,
      );
      if (result.failed.length === 0 && missing.length === 0) return true;
      console.error(
        `baseline failed for ${file}: failed ${JSON.stringify(result.failed)}, not run ${JSON.stringify(missing)}\n${tail(result.log)}`,
      );
      return false;
    });
    if (baselineOk.includes(false)) return 2;

    const rows = await inParallel(copies, mutations, async (workCopy, m) => {
      const region = regions.get(m.id)![0]!;
      const target = path.join(workCopy, region.file);
      const original = fs.readFileSync(target, "utf8");
      let result: RunResult;
      try {
        fs.writeFileSync(target, mutate(original, m));
        result = await runTests(workCopy, m.test.project, m.test.file, [m.test.name]);
      } finally {
        fs.writeFileSync(target, original);
      }
      const verdict =
        result.failed.length > 0
          ? "killed"
          : result.passed.length > 0
            ? "SURVIVED"
            : `ERROR (no test ran, exit ${result.code})`;
      console.log(`${verdict.padEnd(8)} ${m.rule} (${result.seconds}s)`);
      if (verdict !== "killed" && verdict !== "SURVIVED") console.error(tail(result.log));
      return { rule: m.rule, test: `${m.test.file} › ${m.test.name}`, result: verdict };
    });
    for (const m of skipped) {
      rows.push({
        rule: m.rule,
        test: `${m.test.file} › ${m.test.name}`,
        result: "skipped (no TEST_DATABASE_URL)",
      });
    }

    printTable(rows);
    const killed = rows.filter((row) => row.result === "killed").length;
    const bad = rows.filter((row) => row.result !== "killed" && !row.result.startsWith("skipped"));
    console.log(
      `\n${killed}/${mutations.length} mutations killed, ${bad.length} not` +
        `${skipped.length ? `, ${skipped.length} skipped` : ""} (${Math.round((Date.now() - started) / 1000)}s)`,
    );
    return bad.length === 0 ? 0 : 1;
  } finally {
    for (const copy of copies) fs.rmSync(copy, { recursive: true, force: true });
  }
}

const MARKER = /^[ \t]*\/\/ mutant: ([a-z0-9-]+)\n([\s\S]*?)^[ \t]*\/\/ mutant end\n/gm;

/** Every marked region of the product's source, by id: where the rules to delete are. */
function findRegions(): Map<string, { file: string }[]> {
  const regions = new Map<string, { file: string }[]>();
  const files = execLines("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"])
    .filter((file) => /^(lib|app|server|components)\//.test(file) && /\.tsx?$/.test(file))
    .filter((file) => fs.existsSync(path.join(ROOT, file)));
  for (const file of files) {
    for (const match of fs.readFileSync(path.join(ROOT, file), "utf8").matchAll(MARKER)) {
      regions.set(match[1]!, [...(regions.get(match[1]!) ?? []), { file }]);
    }
  }
  return regions;
}

/** The source with the mutation's region replaced (its markers kept). */
function mutate(source: string, m: Mutation): string {
  return source.replace(MARKER, (whole, id: string, body: string) =>
    id === m.id ? whole.replace(body, m.replace ?? "") : whole,
  );
}

/** Runs `task` over `items` with one worker per copy; results in the items' order. */
async function inParallel<T, R>(
  copies: string[],
  items: T[],
  task: (copy: string, item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    copies.map(async (copy) => {
      while (next < items.length) {
        const index = next++;
        results[index] = await task(copy, items[index]!);
      }
    }),
  );
  return results;
}

/** The source as it is in the working tree (tracked and untracked, not ignored), plus links. */
function makeCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "marketplace-mutations-"));
  const files = execLines("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"]);
  for (const file of files) {
    const from = path.join(ROOT, file);
    if (!fs.existsSync(from) || fs.statSync(from).isDirectory()) continue;
    fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, file));
  }
  // Generated and installed code: the Prisma client is copied (it is imported relative to
  // the source), node_modules is linked.
  fs.cpSync(path.join(ROOT, "lib/generated"), path.join(dir, "lib/generated"), {
    recursive: true,
  });
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

function execLines(command: string, args: string[]): string[] {
  return execFileSync(command, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20 })
    .split("\0")
    .filter(Boolean);
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Runs the named tests of one file in the copy; returns which passed and which failed. */
function runTests(
  copy: string,
  project: "unit" | "integration",
  file: string,
  names: string[],
): Promise<RunResult> {
  const report = path.join(copy, `.mutation-report-${Date.now()}.json`);
  const args = [
    "run",
    "--project",
    project,
    file,
    "-t",
    names.map(escapeRegex).join("|"),
    "--reporter=json",
    `--outputFile.json=${report}`,
  ];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(copy, "node_modules/.bin/vitest"), args, {
      cwd: copy,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let log = "";
    child.stdout.on("data", (chunk) => (log += chunk));
    child.stderr.on("data", (chunk) => (log += chunk));
    const timer = setTimeout(() => {
      log += `\n(killed after ${RUN_TIMEOUT_MS / 1000}s)`;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone
      }
    }, RUN_TIMEOUT_MS);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      const passed: string[] = [];
      const failed: string[] = [];
      if (fs.existsSync(report)) {
        const json = JSON.parse(fs.readFileSync(report, "utf8")) as {
          testResults: { assertionResults: { fullName: string; status: string }[] }[];
        };
        fs.rmSync(report);
        for (const result of json.testResults.flatMap((file) => file.assertionResults)) {
          if (result.status === "passed") passed.push(result.fullName);
          if (result.status === "failed") failed.push(result.fullName);
        }
      }
      resolve({
        passed,
        failed,
        code,
        seconds: Math.round((Date.now() - started) / 1000),
        log,
      });
    });
  });
}

const tail = (log: string) => log.split("\n").slice(-40).join("\n");

function printTable(rows: { rule: string; test: string; result: string }[]) {
  const headers = { rule: "rule", test: "test", result: "result" };
  const width = (key: keyof typeof headers) =>
    Math.max(headers[key].length, ...rows.map((row) => row[key].length));
  const line = (row: typeof headers) =>
    `| ${row.rule.padEnd(width("rule"))} | ${row.test.padEnd(width("test"))} | ${row.result.padEnd(width("result"))} |`;
  console.log(`\n${line(headers)}`);
  console.log(
    `|${"-".repeat(width("rule") + 2)}|${"-".repeat(width("test") + 2)}|${"-".repeat(width("result") + 2)}|`,
  );
  for (const row of rows) console.log(line(row));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
