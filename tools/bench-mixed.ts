// The mixed read workload of `npm run bench`: thousands of distinct public reads, as traffic
// asks them (every list filter, search words from the seeded titles, budget ranges, sorts,
// pages 2 to 5 by cursor, single jobs by random id, agents, their reviews), so that few
// repeat while the read cache could answer them: the single-URL rows measure the cache, these
// measure the reads. The ceiling answers each request's own bytes: each answer is read once
// beforehand and stored in the echo under its index (mixed-<i>, dev/bench-echo.ts), and real
// and ceiling walk the same list in the same order.
import { createHash } from "node:crypto";
import { CATEGORIES } from "@/lib/shared/enums";
import type { Target } from "./bench-measure";
import { BENCH_AGENTS, benchPosterAddress, benchPosterCount, WORDS } from "./bench-seed";
import { seededRandom } from "./seeded-random";
import { serverTiming, type Timing } from "./bench-timing";

/** How many distinct requests the workload walks through (the echo holds up to 10,000). */
export const MIXED_REQUESTS = 4000;

export interface MixedRequest {
  kind: string;
  /** The path and query of the real request. */
  path: string;
  /** Pages of the same list to read first, for the cursor (0: a first page). */
  after: number;
}

const STATUSES = ["open", "in_progress", "delivered", "completed"] as const;

/** The seeded job number g's id (tools/bench-seed.ts). */
const seededJobId = (g: number) =>
  `job_${createHash("md5").update(String(g)).digest("hex").slice(0, 16)}`;

/** The kinds of request, each with its weight in the mix and a generator. */
function kinds(size: number, next: () => number) {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const maybe = (share: number) => next() < share;
  const limit = () => pick([10, 20, 50]);
  const filters = () => {
    const query = new URLSearchParams();
    if (maybe(0.7)) query.set("status", pick(STATUSES));
    if (maybe(0.5)) query.set("category", pick(CATEGORIES));
    if (maybe(0.1)) {
      query.set("poster", benchPosterAddress(Math.floor(next() * benchPosterCount(size))));
    }
    query.set("limit", String(limit()));
    return query;
  };
  const words = () =>
    maybe(0.5)
      ? `topic${Math.floor(next() * 997)}`
      : maybe(0.5)
        ? pick(WORDS)
        : `${pick(WORDS)} topic${Math.floor(next() * 997)}`;
  const budgets = (query: URLSearchParams) => {
    const min = 1 + Math.floor(next() * 480);
    query.set("minBudgetUsdc", String(min));
    query.set("maxBudgetUsdc", String(min + 1 + Math.floor(next() * 60)));
    return query;
  };
  const list = (query: URLSearchParams) => `/api/v1/jobs?${query}`;
  return [
    { kind: "list", weight: 18, make: () => list(filters()) },
    {
      kind: "list, pages 2-5",
      weight: 10,
      make: () => list(filters()),
      after: () => 1 + Math.floor(next() * 4),
    },
    {
      kind: "search q=",
      weight: 12,
      make: () => {
        const query = filters();
        query.set("q", words());
        if (maybe(0.3)) query.set("sort", pick(["newest", "budget_desc"]));
        return list(query);
      },
    },
    { kind: "budget range", weight: 8, make: () => list(budgets(filters())) },
    {
      kind: "sort by budget",
      weight: 8,
      make: () => {
        const query = maybe(0.3) ? budgets(filters()) : filters();
        query.set("sort", pick(["budget_desc", "budget_asc"]));
        return list(query);
      },
    },
    {
      kind: "job",
      weight: 26,
      make: () => `/api/v1/jobs/${seededJobId(1 + Math.floor(next() * size))}`,
    },
    {
      kind: "agents",
      weight: 4,
      make: () => {
        const query = new URLSearchParams();
        if (maybe(0.6)) query.set("category", pick(CATEGORIES));
        query.set("sort", pick(["newest", "rating", "completed_jobs"]));
        query.set("limit", String(limit()));
        return `/api/v1/agents?${query}`;
      },
    },
    {
      kind: "agent",
      weight: 6,
      make: () => `/api/v1/agents/agent_bench_${Math.floor(next() * BENCH_AGENTS)}`,
    },
    {
      kind: "reviews",
      weight: 8,
      make: () =>
        `/api/v1/reviews?agentId=agent_bench_${Math.floor(next() * BENCH_AGENTS)}&limit=${limit()}`,
    },
  ];
}

/** `count` distinct requests over a seeded schema of `size` jobs, the same on every run. */
export function mixedRequests(size: number, count = MIXED_REQUESTS): MixedRequest[] {
  const next = seededRandom(size);
  const table = kinds(size, next);
  const total = table.reduce((sum, kind) => sum + kind.weight, 0);
  const seen = new Set<string>();
  const requests: MixedRequest[] = [];
  for (let attempt = 0; requests.length < count && attempt < count * 20; attempt++) {
    let roll = next() * total;
    const kind = table.find((candidate) => (roll -= candidate.weight) < 0) ?? table[0]!;
    const path = kind.make();
    const after = "after" in kind && kind.after ? kind.after() : 0;
    if (seen.has(`${after} ${path}`)) continue;
    seen.add(`${after} ${path}`);
    requests.push({ kind: kind.kind, path, after });
  }
  return requests;
}

/**
 * Reads each request's answer once (following nextCursor for the later pages) and stores it
 * as its ceiling; returns the paths real requests ask (with their cursors) and the bytes.
 */
export async function prepareMixed(
  baseUrl: string,
  requests: MixedRequest[],
): Promise<{ paths: string[]; bytes: number }> {
  const paths: string[] = new Array(requests.length);
  let bytes = 0;
  let index = 0;
  const worker = async () => {
    while (index < requests.length) {
      const mine = index++;
      const request = requests[mine]!;
      let path = request.path;
      for (let page = 0; page < request.after; page++) {
        const answer = (await (await fetch(baseUrl + path)).json()) as {
          meta?: { nextCursor?: string | null };
        };
        const cursor = answer.meta?.nextCursor;
        // A list shorter than its pages: its last page stands in (still a distinct request).
        if (!cursor) break;
        path = `${request.path}&cursor=${encodeURIComponent(cursor)}`;
      }
      const answer = await fetch(baseUrl + path);
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
      const body = Buffer.from(await answer.arrayBuffer());
      const stored = await fetch(`${baseUrl}/api/dev/echo?key=mixed-${mine}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      if (stored.status !== 200) throw new Error(`storing mixed-${mine}: ${await stored.text()}`);
      paths[mine] = path;
      bytes += body.byteLength;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { paths, bytes };
}

/**
 * Where each kind of request spends its handler's time: every path asked once more, one at a
 * time on a server otherwise idle, its Server-Timing read (lib/platform/server-timing.ts).
 */
export async function mixedSplit(
  baseUrl: string,
  requests: MixedRequest[],
  paths: string[],
): Promise<string[]> {
  const timings: Timing[] = [];
  for (const path of paths) {
    const answer = await fetch(baseUrl + path);
    await answer.arrayBuffer();
    // An error answer runs no statement either: it would pass for a cache hit.
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    timings.push(serverTiming(answer.headers, path));
  }
  return splitByKind(requests, timings);
}

/**
 * One line per kind, in the mix's order: the mean statements a request ran and the mean
 * milliseconds it waited on PostgreSQL of those in its handler. Answers the read cache gave
 * (no statement) are counted apart, not in the means.
 */
export function splitByKind(requests: MixedRequest[], timings: Timing[]): string[] {
  const kinds = new Map<
    string,
    { read: number; cached: number; statements: number; db: number; total: number }
  >();
  requests.forEach((request, index) => {
    const timing = timings[index]!;
    const kind = kinds.get(request.kind) ?? { read: 0, cached: 0, statements: 0, db: 0, total: 0 };
    if (timing.dbCalls === 0) kind.cached += 1;
    else {
      kind.read += 1;
      kind.statements += timing.dbCalls;
      kind.db += timing.db;
      kind.total += timing.total;
    }
    kinds.set(request.kind, kind);
  });
  return [...kinds].map(([name, { read, cached, statements, db, total }]) => {
    if (read === 0) return `${name}: all ${cached} from the cache`;
    const mean = (value: number) => (value / read).toFixed(2);
    const fromCache = cached ? ` (${cached} from the cache)` : "";
    return `${name}: ${mean(statements)} statements, ${mean(db)} of ${mean(total)} ms on PostgreSQL${fromCache}`;
  });
}

/**
 * Real and ceiling targets walking the list: every request of every connection takes the next
 * index (one counter per side, carried across rounds), so a request comes back only after all
 * the others.
 */
export function mixedTargets(baseUrl: string, paths: string[]): { real: Target; ceiling: Target } {
  const walk = (pathOf: (index: number) => string): Target => {
    let next = 0;
    return {
      url: baseUrl,
      requests: [
        {
          method: "GET",
          setupRequest: (request) => ({ ...request, path: pathOf(next++ % paths.length) }),
        },
      ],
    };
  };
  return {
    real: walk((index) => paths[index]!),
    ceiling: walk((index) => `/api/dev/echo?key=mixed-${index}`),
  };
}

/** How many of each kind the list holds. */
export function mixedComposition(requests: MixedRequest[]): string {
  const counts = new Map<string, number>();
  for (const request of requests) counts.set(request.kind, (counts.get(request.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${kind} ${n}`).join(", ");
}
