import { AsyncLocalStorage, AsyncResource } from "node:async_hooks";
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

/** Starts timing a wait of the request running now; the returned function ends it. */
function startWait(kind: "db" | "chain"): () => void {
  // Read now: a callback may run outside the request's async context.
  const waits = requests.getStore();
  if (!waits) return () => {};
  const started = performance.now();
  return () => {
    waits[kind] += performance.now() - started;
    if (kind === "db") waits.dbCalls += 1;
    else waits.chainCalls += 1;
  };
}

/**
 * Times every query of the pool (the benchmark's server). pg-pool hands a waiting query its
 * connection from the code that released one, outside the query's request: the callback is
 * bound to the asking request, so that each query is counted for the request that made it.
 */
export function timePool(pool: pg.Pool): void {
  pool.on("connect", timeQueries);
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  (pool as { connect: unknown }).connect = (callback?: unknown) =>
    typeof callback === "function"
      ? connect(AsyncResource.bind(callback as (...args: unknown[]) => unknown))
      : connect();
}

/**
 * Times each query of a pooled connection (wired on the pool's "connect"): those that answer a
 * promise (a transaction's) and those that answer through a callback (`pool.query`, which
 * Prisma uses outside transactions, calls the client so).
 */
function timeQueries(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const done = startWait("db");
    const callback = args.at(-1);
    if (typeof callback === "function") {
      args[args.length - 1] = (...results: unknown[]) => {
        done();
        return (callback as (...results: unknown[]) => unknown)(...results);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) return result.finally(done);
    return result;
  };
}

/** viem's `fetchFn` for JSON-RPC: fetch, timed when inside a measured request. */
export async function timedRpcFetch(
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  const done = startWait("chain");
  try {
    return await fetch(input, init);
  } finally {
    done();
  }
}
