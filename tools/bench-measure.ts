// How `npm run bench` measures: autocannon against a real handler and its ceiling (the same
// bytes from memory, in the same server), interleaved round by round so that whatever else
// the machine does falls on both alike; and the goals, each a ratio with PASS or FAIL.

// autocannon ships no types; this is the part of its API used here.
interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
export interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}
/**
 * One request of a sequence a connection sends in turn (a load of several endpoints, or the
 * mixed workload); setupRequest may change it before it is sent (its path).
 */
export interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
export type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  requests?: AutocannonRequest[];
}) => Promise<AutocannonResult>;

export async function loadAutocannon(): Promise<Autocannon> {
  const name: string = "autocannon";
  const loaded = (await import(name)) as { default?: Autocannon } & Autocannon;
  return loaded.default ?? loaded;
}

export interface Target {
  url: string;
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
  /** Requests in turn instead of `url`'s own (tools/bench-mixed.ts). */
  requests?: AutocannonRequest[];
}

export interface Settings {
  connections: number;
  warmup: number;
  duration: number;
  rounds: number;
}

/** Requests per second over all rounds, and the rounds' mean p50 and p99 latency (ms). */
export interface Stats {
  perSecond: number;
  p50: number;
  p99: number;
}

async function run(autocannon: Autocannon, target: Target, connections: number, duration: number) {
  const result = await autocannon({ ...target, connections, duration });
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(
      `${target.method ?? "GET"} ${target.url}: ${result.errors} errors, ${result.timeouts} ` +
        `timeouts, ${result.non2xx} non-2xx answers`,
    );
  }
  return result;
}

/** Requests per second over the runs given: their requests over their time. */
function rate(results: AutocannonResult[]): number {
  const total = results.reduce((sum, result) => sum + result.requests.total, 0);
  const seconds = results.reduce((sum, result) => sum + result.duration, 0);
  return total / seconds;
}

function summarize(results: AutocannonResult[]): Stats {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    perSecond: rate(results),
    p50: mean(results.map((result) => result.latency.p50)),
    p99: mean(results.map((result) => result.latency.p99)),
  };
}

/** Drives each target for the warm-up time (JIT, connection pools, caches). */
export async function warmUp(autocannon: Autocannon, targets: Target[], settings: Settings) {
  if (settings.warmup <= 0) return;
  for (const target of targets) {
    await run(autocannon, target, settings.connections, settings.warmup);
  }
}

/**
 * Each round's real rate over its ceiling's, in the order run. The machine's own noise shows
 * here: on a shared host a row's rounds, seconds apart, have read up to 35 points apart on
 * the same code (docs/benchmarks/2026-11-27-noise.md), so a ratio near its goal is read with
 * them.
 */
export function roundRatios(real: AutocannonResult[], ceiling: AutocannonResult[]): number[] {
  if (real.length !== ceiling.length) throw new Error("each round runs both sides");
  return real.map((result, round) => rate([result]) / rate([ceiling[round]!]));
}

/** The rounds' spread, lowest to highest: `51%–58%`, or one figure for one round. */
export function formatSpread(ratios: number[], format: (ratio: number) => string): string {
  const low = format(Math.min(...ratios));
  const high = format(Math.max(...ratios));
  return low === high ? low : `${low}–${high}`;
}

/** Each round's figure in the order run: `58%, 82%, 72%`. */
export function formatRounds(ratios: number[], format: (ratio: number) => string): string {
  return ratios.map(format).join(", ");
}

/**
 * Real and ceiling, warmed up, then `rounds` rounds each, alternating which goes first.
 * `around` wraps each measured run (the CPU each side used is counted around it).
 */
export async function sideBySide(
  autocannon: Autocannon,
  real: Target,
  ceiling: Target,
  settings: Settings,
  around: (
    which: "real" | "ceiling",
    run: () => Promise<AutocannonResult>,
  ) => Promise<AutocannonResult> = (_, run) => run(),
): Promise<{ real: Stats; ceiling: Stats; rounds: number[] }> {
  const { connections, duration, rounds } = settings;
  await warmUp(autocannon, [real, ceiling], settings);
  const results = { real: [] as AutocannonResult[], ceiling: [] as AutocannonResult[] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["real", "ceiling"] as const) : (["ceiling", "real"] as const);
    for (const which of order) {
      const target = which === "real" ? real : ceiling;
      results[which].push(
        await around(which, () => run(autocannon, target, connections, duration)),
      );
    }
  }
  return {
    real: summarize(results.real),
    ceiling: summarize(results.ceiling),
    rounds: roundRatios(results.real, results.ceiling),
  };
}

// ---------------------------------------------------------------------------------------

export function printTable(header: string[], rows: string[][], leftColumns = 2) {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column < leftColumns ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join("  ")
      .trimEnd();
  console.log(`\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const row of rows) console.log(line(row));
}

export interface Goal {
  goal: string;
  measured: string;
  pass: boolean;
}

export const percent = (ratio: number) => `${(100 * ratio).toFixed(0)}%`;
/** A ratio of two throughputs or times, as `1.27×`. */
export const times = (ratio: number) => `${ratio.toFixed(2)}×`;

/** A ratio that must reach `at least` (or stay within `at most`). */
export function ratioGoal(
  goal: string,
  ratio: number,
  bound: { atLeast: number } | { atMost: number },
  format: (value: number) => string = percent,
): Goal {
  const pass = "atLeast" in bound ? ratio >= bound.atLeast : ratio <= bound.atMost;
  const target = "atLeast" in bound ? `≥ ${format(bound.atLeast)}` : `≤ ${format(bound.atMost)}`;
  return { goal: `${goal} ${target}`, measured: format(ratio), pass };
}

export function printGoals(goals: Goal[]) {
  printTable(
    ["goal", "measured", "result"],
    goals.map((goal) => [goal.goal, goal.measured, goal.pass ? "PASS" : "FAIL"]),
    1,
  );
  const failed = goals.filter((goal) => !goal.pass).length;
  console.log(`\n${goals.length - failed} of ${goals.length} goals met`);
}
