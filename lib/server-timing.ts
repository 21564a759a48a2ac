import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";

/**
 * The benchmark's view inside a request (BENCHMARK_MODE only, which production refuses): how
 * long the handler ran, and how much of that it spent waiting on the database (every query's
 * round-trip, as the pg driver sees it) and on the chain (every JSON-RPC call), answered as a
 * `Server-Timing` header. `npm run bench` sets these side by side for each lifecycle step.
 * Outside a measured request the hooks below cost one AsyncLocalStorage lookup.
 */
interface Waits {
  db: number;
  dbCalls: number;
  chain: number;
  chainCalls: number;
}

// One for every copy of this module: the chain clients are made once per process (cached on
// globalThis) by whichever bundle asked first, and must record into the same requests.
const shared = globalThis as typeof globalThis & { __serverTiming?: AsyncLocalStorage<Waits> };
const requests = (shared.__serverTiming ??= new AsyncLocalStorage<Waits>());

/** Runs a request's handler, measured; its answer carries the Server-Timing header. */
export async function withServerTiming(handle: () => Promise<Response>): Promise<Response> {
  const waits: Waits = { db: 0, dbCalls: 0, chain: 0, chainCalls: 0 };
  const started = performance.now();
  const response = await requests.run(waits, handle);
  const total = performance.now() - started;
  const ms = (value: number) => value.toFixed(2);
  response.headers.set(
    "Server-Timing",
    `total;dur=${ms(total)}, db;dur=${ms(waits.db)};desc="${waits.dbCalls} queries", ` +
      `chain;dur=${ms(waits.chain)};desc="${waits.chainCalls} calls"`,
  );
  return response;
}

function record(kind: "db" | "chain", started: number) {
  const waits = requests.getStore();
  if (!waits) return;
  waits[kind] += performance.now() - started;
  if (kind === "db") waits.dbCalls += 1;
  else waits.chainCalls += 1;
}

/** Times each promise-returning query of a pooled connection (wired on the pool's "connect"). */
export function timeQueries(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const started = performance.now();
    const result = query(...args);
    if (result instanceof Promise) return result.finally(() => record("db", started));
    return result;
  };
}

/** viem's `fetchFn` for JSON-RPC: fetch, timed when inside a measured request. */
export async function timedRpcFetch(
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  const started = performance.now();
  try {
    return await fetch(input, init);
  } finally {
    record("chain", started);
  }
}
