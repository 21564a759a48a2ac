// The benchmark server's Server-Timing header (BENCHMARK_MODE, lib/platform/server-timing.ts),
// read: how long a request's handler ran, and how much of it waited on PostgreSQL (its
// statements) and on the chain (its JSON-RPC calls).

export interface Timing {
  total: number;
  db: number;
  dbCalls: number;
  chain: number;
  chainCalls: number;
}

export function serverTiming(headers: Headers, label: string): Timing {
  const header = headers.get("server-timing") ?? "";
  const metric = (name: string) => {
    const match = new RegExp(`${name};dur=([\\d.]+)(?:;desc="(\\d+))?`).exec(header);
    if (!match) throw new Error(`${label}: no ${name} in Server-Timing "${header}"`);
    return { ms: Number(match[1]), calls: Number(match[2] ?? 0) };
  };
  const [total, db, chain] = [metric("total"), metric("db"), metric("chain")];
  return {
    total: total.ms,
    db: db.ms,
    dbCalls: db.calls,
    chain: chain.ms,
    chainCalls: chain.calls,
  };
}
