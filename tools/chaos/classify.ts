// What each recorded request says about the product. A 2xx is a success (and so is the 402
// challenge a payer asks for before signing), a 4xx an answer about
// the request (counted by code, not a failure: a write repeated after a lost answer is refused
// as a conflict). During a fault's window (until GRACE_MS after the dependency is back) a 503
// with Retry-After is the expected answer, and so is no answer at all from the server the fault
// killed. Anything else is a failure: a signed payment refused (402) during a fault, a 500 (or any other 5xx), a 503 without Retry-After or
// outside every window, a request unanswered within the client's timeout (a hang), or a
// connection that failed when no server was down.
import { type FaultWindow, windowEnd } from "./faults";
import { HANG, NO_ANSWER, type RequestRecord } from "./recorder";

export type Verdict = "ok" | "client-error" | "expected" | "failure";

export interface Classified {
  record: RequestRecord;
  verdict: Verdict;
  /** The fault window it overlapped, if any. */
  window?: FaultWindow;
  /** Why a failure is one. */
  why?: string;
}

export function windowOf(
  record: RequestRecord,
  windows: FaultWindow[],
  now: number,
): FaultWindow | undefined {
  return windows.find((w) => record.start <= windowEnd(w, now) && record.end >= w.start);
}

export function classify(record: RequestRecord, windows: FaultWindow[], now: number): Classified {
  const window = windowOf(record, windows, now);
  const status = record.status;
  if ((status >= 200 && status < 300) || (status === 402 && record.challenge)) {
    return { record, verdict: "ok", window };
  }
  // A signed payment refused for good while a dependency was down: the fault, not the payment,
  // decided it (the payer must sign again); a 503 was the answer owed.
  if (status === 402 && window && record.endpoint.endsWith("/settle")) {
    return {
      record,
      verdict: "failure",
      window,
      why: `${["402", record.code].filter(Boolean).join(" ")}: a signed payment refused during a fault`,
    };
  }
  if (status >= 400 && status < 500) return { record, verdict: "client-error", window };
  if (status === 503 && record.retryAfter && window) return { record, verdict: "expected", window };
  if (status === NO_ANSWER && window?.server === record.server) {
    return { record, verdict: "expected", window };
  }
  const why =
    status === HANG
      ? "no answer within the client's timeout (a hang)"
      : status === NO_ANSWER
        ? `no answer: ${record.error ?? "connection failed"}${window ? "" : " (no fault under way)"}`
        : status === 503 && !record.retryAfter
          ? `503 ${record.code ?? ""} without Retry-After`
          : status === 503
            ? `503 ${record.code ?? ""} outside any fault window`
            : `${status} ${record.code ?? ""}`;
  return { record, verdict: "failure", window, why: why.replace(/\s+/g, " ").trim() };
}

export interface FaultRow {
  fault: string;
  requests: number;
  ok: number;
  expected: number;
  clientErrors: number;
  failures: number;
  recovery: string;
  /** Seconds from `back` to the first 2xx of a write started after it. */
  firstWrite: string;
}

export function faultTable(classified: Classified[], windows: FaultWindow[]): FaultRow[] {
  const row = (fault: string, items: Classified[], window?: FaultWindow): FaultRow => {
    const firstWrite = window?.back
      ? classified
          .filter(
            (c) =>
              c.verdict === "ok" && c.record.method !== "GET" && c.record.start >= window.back!,
          )
          .reduce((min, c) => Math.min(min, c.record.end - window.back!), Infinity)
      : Infinity;
    return {
      fault,
      requests: items.length,
      ok: items.filter((c) => c.verdict === "ok").length,
      expected: items.filter((c) => c.verdict === "expected").length,
      clientErrors: items.filter((c) => c.verdict === "client-error").length,
      failures: items.filter((c) => c.verdict === "failure").length,
      recovery:
        window === undefined
          ? "-"
          : window.error
            ? `fault failed: ${window.error.slice(0, 40)}`
            : window.recoverySeconds === undefined
              ? "never"
              : window.recoverySeconds.toFixed(1),
      firstWrite: Number.isFinite(firstWrite) ? (firstWrite / 1000).toFixed(1) : "-",
    };
  };
  return [
    ...windows.map((w) =>
      row(
        w.name,
        classified.filter((c) => c.window === w),
        w,
      ),
    ),
    row(
      "(no fault)",
      classified.filter((c) => !c.window),
    ),
    row("all", classified),
  ];
}

/** The failures, grouped by fault, endpoint and what was seen, with a count and a first time. */
export function failureGroups(classified: Classified[]) {
  const groups = new Map<
    string,
    { fault: string; endpoint: string; why: string; count: number; first: number }
  >();
  for (const c of classified) {
    if (c.verdict !== "failure") continue;
    const fault = c.window?.name ?? "(no fault)";
    const key = `${fault}|${c.record.endpoint}|${c.why}`;
    const group = groups.get(key);
    if (group) group.count++;
    else
      groups.set(key, {
        fault,
        endpoint: c.record.endpoint,
        why: c.why!,
        count: 1,
        first: c.record.start,
      });
  }
  return [...groups.values()].sort((a, b) => a.first - b.first);
}

/** 4xx answers by endpoint and code: refusals are not failures, but a surprising one shows here. */
export function clientErrorGroups(classified: Classified[]) {
  const groups = new Map<string, number>();
  for (const c of classified) {
    if (c.verdict !== "client-error") continue;
    const key = `${c.record.endpoint} → ${c.record.status} ${c.record.code ?? ""}`.trim();
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups.entries()].sort((a, b) => b[1] - a[1]);
}
