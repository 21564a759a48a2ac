// The soak's measurements (Linux): each process's resident memory sampled on a timer (an app
// server or the facilitator is its whole process group: supervisor and worker, tsx and its
// child; PostgreSQL is the postmaster and its backends), p99 latency per endpoint per bucket
// of minutes, and the database's size and row counts at the start and at the end.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { listProcesses, type ProcessInfo, residentBytes } from "../proc";
import type { RequestRecord } from "./recorder";
import type { Stack } from "./stack";

const mib = (bytes: number) => bytes / 1024 / 1024;

function postmasterPid(dataDir: string): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return undefined;
  }
}

/** RSS in MiB of each of the stack's processes now (undefined: not running). */
export function sampleMemory(stack: Stack): Record<string, number | undefined> {
  const all = listProcesses();
  // A process that exits before its memory is read counts nothing, as one gone before the walk.
  const rss = (members: ProcessInfo[]) =>
    mib(members.reduce((sum, p) => sum + (residentBytes(p.pid) ?? 0), 0));
  const group = (pgid: number | undefined) =>
    pgid === undefined ? undefined : rss(all.filter((p) => p.pgid === pgid));
  const postmaster = postmasterPid(stack.postgres.dataDir);
  return {
    ...Object.fromEntries(stack.apps.map((app) => [app.name, group(app.pid())])),
    facilitator: group(stack.facilitator.pid()),
    chain: group(stack.chain.pid()),
    redis: group(stack.redis.pid()),
    postgres:
      postmaster === undefined
        ? undefined
        : rss(all.filter((p) => p.pid === postmaster || p.ppid === postmaster)),
  };
}

export interface MemorySample {
  at: number;
  rss: Record<string, number | undefined>;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** p99 of the 2xx answers' latency per endpoint per bucket: rows of [endpoint, p99 (n)...]. */
export function p99Buckets(records: RequestRecord[], bucketMs: number, from: number, to: number) {
  const byEndpoint = new Map<string, number[][]>();
  let buckets = 0;
  for (const r of records) {
    if (r.status < 200 || r.status >= 300 || r.start < from || r.start >= to) continue;
    const bucket = Math.floor((r.start - from) / bucketMs);
    buckets = Math.max(buckets, bucket + 1);
    const rows = byEndpoint.get(r.endpoint) ?? [];
    (rows[bucket] ??= []).push(r.end - r.start);
    byEndpoint.set(r.endpoint, rows);
  }
  const p99s = new Map<string, { p99: number; n: number }[]>();
  for (const [endpoint, rows] of byEndpoint) {
    p99s.set(
      endpoint,
      Array.from({ length: buckets }, (_, i) => {
        const sorted = [...(rows[i] ?? [])].sort((a, b) => a - b);
        return { p99: percentile(sorted, 99), n: sorted.length };
      }),
    );
  }
  return { buckets, p99s };
}

export interface DbStats {
  sizeBytes: number;
  rows: Record<string, number>;
}

export async function databaseStats(url: string): Promise<DbStats> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const size = await db.query<{ size: string }>(
      `SELECT pg_database_size(current_database())::text AS size`,
    );
    const { rows: tables } = await db.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE '\\_%' ORDER BY tablename`,
    );
    const rows: Record<string, number> = {};
    for (const { name } of tables) {
      const { rows: counted } = await db.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM "${name}"`,
      );
      rows[name] = Number(counted[0]!.n);
    }
    return { sizeBytes: Number(size.rows[0]!.size), rows };
  } finally {
    await db.end();
  }
}
