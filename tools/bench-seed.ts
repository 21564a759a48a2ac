// The benchmark's seeded schemas: one per size, seeded in bulk (INSERT ... SELECT
// generate_series, in chunks) and kept between runs, since a million jobs take minutes to
// write and index. A schema is reused when its marker says it was seeded completely with this
// SEED_VERSION (migrations added since are applied on reuse); BENCH_RESEED=1 seeds it again.
// Reads leave the seeded jobs as they are; writes run in a throwaway schema (tools/bench.ts).
import { createHash } from "node:crypto";
import pg from "pg";
import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { migrateTarget } from "@/lib/db/setup";
import { quoteIdent } from "@/lib/db/sql";
import { resolveDbTarget } from "@/lib/db/target";

/** Bump when the seed's rows change: older schemas are then left alone, not reused. */
const SEED_VERSION = 5;
/** Agents seeded beside the jobs (the mixed reads ask for them and their reviews). */
export const BENCH_AGENTS = 200;
const CHUNK = 250_000;

export const BENCH_POSTER_KEY = `0x${"b".repeat(64)}` as const;
const POSTER = privateKeyToAccount(BENCH_POSTER_KEY).address;

/**
 * Posters of the seeded jobs: about one per 50 jobs, at most 20,000 (more than a process
 * remembers checksums for), so that a page's jobs come from as many posters as real traffic's
 * would; job g is poster g % n's, and every fourth poster is verified. n shares no factor with
 * the seed's cycles that filters and searches ask by (status g % 10, word g % 20, category
 * g % 23, budget g % 500, topic g % 997), so each poster's jobs spread over every status, word
 * and category, and about 50 budgets and topics. Poster 0 is the benchmark's signed-in poster,
 * who also operates the agents.
 */
export function benchPosterCount(size: number): number {
  let n = Math.max(1, Math.min(20_000, Math.floor(size / 50)));
  while (n > 1 && [2, 5, 23, 997].some((factor) => n % factor === 0)) n -= 1;
  return n;
}

/** Job g's poster, in SQL over the posters' array at parameter $1 (a review's author too). */
const POSTER_OF_G = "($1::text[])[1 + g % cardinality($1::text[])]";

/** Poster p's address, EIP-55 checksummed as the app writes every address. */
export const benchPosterAddress = (p: number): string =>
  p === 0
    ? POSTER
    : getAddress(
        `0x${createHash("sha256").update(`bench poster ${p}`).digest("hex").slice(0, 40)}`,
      );

/** Agents `agent_bench_0`..: the poster operates them all; categories in turn. */
async function seedAgents(client: pg.Client) {
  await client.query(
    `INSERT INTO "agents" ("id", "name", "description", "walletAddress", "operatorAddress",
       "categories", "createdAt")
     SELECT 'agent_bench_' || g, 'Bench agent ' || g, 'A seeded agent for the benchmark.', $1, $1,
            ARRAY[(enum_range(NULL::"Category"))[1 + g % 23]],
            TIMESTAMP '2026-01-01' + make_interval(secs => g)
     FROM generate_series(0, $2::int - 1) AS g`,
    [benchPosterAddress(0), BENCH_AGENTS],
  );
}

/**
 * A review of every 50th job (completed ones: g % 10 = 9) by its poster, spread over the
 * agents.
 */
async function seedReviews(client: pg.Client, size: number, posters: string[]) {
  await client.query(
    `INSERT INTO "reviews" ("id", "agentId", "jobId", "reviewerAddress", "rating", "comment",
       "createdAt")
     SELECT 'review_' || substr(md5(g::text), 1, 16), 'agent_bench_' || (g / 50) % $3::int,
            'job_' || substr(md5(g::text), 1, 16), ${POSTER_OF_G},
            1 + g % 5, 'Seeded review #' || g, TIMESTAMP '2026-01-01' + make_interval(secs => g)
     FROM generate_series(9, $2::int, 50) AS g`,
    [posters, size, BENCH_AGENTS],
  );
}

/** Words in the seeded titles: `topicN` (N < 997) makes a search that matches ~0.1% of jobs. */
export const WORDS = [
  "invoices", "contracts", "papers", "tables", "transcripts", "reviews", "prices", "emails",
  "reports", "datasets", "images", "recipes", "patents", "filings", "tickets", "surveys",
  "slides", "manuals", "listings", "minutes",
]; // prettier-ignore

export interface SeededSchema {
  schema: string;
  /** DATABASE_URL for a server on this schema. */
  url: string;
  /** Milliseconds spent seeding now (0: reused). */
  seededMs: number;
}

function schemaUrl(databaseUrl: string, schema: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set("schema", schema);
  return url.toString();
}

async function isSeeded(admin: pg.Client, schema: string, size: number): Promise<boolean> {
  const { rows } = await admin.query<{ marker: string | null }>(
    `SELECT to_regclass($1) AS marker`,
    [`${quoteIdent(schema)}."bench_seed"`],
  );
  if (!rows[0]?.marker) return false;
  const seeded = await admin.query<{ size: number; version: number }>(
    `SELECT "size", "version" FROM ${quoteIdent(schema)}."bench_seed"`,
  );
  return seeded.rows[0]?.size === size && seeded.rows[0]?.version === SEED_VERSION;
}

/** The posters' wallets (every fourth verified). */
async function seedPosters(client: pg.Client, posters: string[]) {
  await client.query(
    `INSERT INTO "wallets" ("address", "verified", "verifiedAt")
     SELECT address, p % 4 = 0, CASE WHEN p % 4 = 0 THEN TIMESTAMP '2026-01-01' END
     FROM unnest($1::text[]) WITH ORDINALITY AS t(address, n), LATERAL (SELECT n - 1 AS p) q`,
    [posters],
  );
}

/**
 * Jobs `from`..`to` in one statement: 70% open, the rest spread over the other states; each
 * delivered or completed job with one to three attachments, as a delivery leaves them.
 */
async function seedJobs(client: pg.Client, from: number, to: number, posters: string[]) {
  await client.query(
    `INSERT INTO "jobs" ("id", "title", "description", "category", "budgetAtomic", "timelineDays",
       "requirements", "handle", "status", "posterAddress", "createdAt", "updatedAt")
     SELECT 'job_' || substr(md5(g::text), 1, 16),
            'Benchmark job #' || g || ': ' || ($4::text[])[1 + g % 20] || ', topic' || (g % 997),
            'A seeded job for the benchmark. ' || repeat('Summarise, compare and cite. ', 8),
            (enum_range(NULL::"Category"))[1 + g % 23],
            (1 + g % 500)::bigint * 1000000 + 250000,
            1 + g % 30,
            ARRAY['Cite every source', 'Deliver as Markdown'],
            '@bench',
            (CASE WHEN g % 10 < 7 THEN 'open' WHEN g % 10 = 7 THEN 'in_progress'
                  WHEN g % 10 = 8 THEN 'delivered' ELSE 'completed' END)::"JobStatus",
            ${POSTER_OF_G},
            TIMESTAMP '2026-01-01' + make_interval(secs => g),
            TIMESTAMP '2026-01-01' + make_interval(secs => g)
     FROM generate_series($2::int, $3::int) AS g`,
    [posters, from, to, WORDS],
  );
  await client.query(
    `INSERT INTO "attachments" ("id", "jobId", "name", "size", "type", "data", "createdAt")
     SELECT 'attachment_' || g || '_' || n, 'job_' || substr(md5(g::text), 1, 16),
            'deliverable-' || n || '.md', octet_length(body), 'text/markdown', body,
            TIMESTAMP '2026-01-01' + make_interval(secs => g)
     FROM generate_series($1::int, $2::int) AS g, generate_series(1, 1 + g % 3) AS n,
          LATERAL (SELECT convert_to('# Delivery ' || g || ', part ' || n, 'UTF8') AS body) b
     WHERE g % 10 >= 8`,
    [from, to],
  );
}

/** The schema holding `size` seeded jobs, seeding it first when it is missing or stale. */
export async function seededSchema(
  databaseUrl: string,
  size: number,
  reseed: boolean,
): Promise<SeededSchema> {
  const schema = `bench_s${SEED_VERSION}_${size}`;
  const url = schemaUrl(databaseUrl, schema);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    if (!reseed && (await isSeeded(admin, schema, size))) {
      await migrateTarget(resolveDbTarget({ DATABASE_URL: url }));
      return { schema, url, seededMs: 0 };
    }
    const started = Date.now();
    await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await admin.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
    await migrateTarget(resolveDbTarget({ DATABASE_URL: url }));
    await admin.query(`SET search_path TO ${quoteIdent(schema)}`);
    await admin.query(`SET synchronous_commit TO off`);
    const posters = Array.from({ length: benchPosterCount(size) }, (_, p) => benchPosterAddress(p));
    await seedPosters(admin, posters);
    // Bulk load into the bare table, then build the migrations' indexes once (much faster
    // than keeping a GIN and seven b-trees up to date row by row).
    const { rows: indexes } = await admin.query<{ name: string; definition: string }>(
      `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
        WHERE schemaname = $1 AND tablename = 'jobs' AND indexname <> 'jobs_pkey'`,
      [schema],
    );
    for (const index of indexes) await admin.query(`DROP INDEX ${quoteIdent(index.name)}`);
    for (let from = 1; from <= size; from += CHUNK) {
      await seedJobs(admin, from, Math.min(size, from + CHUNK - 1), posters);
      if (size > CHUNK) {
        process.stdout.write(`  seeding ${schema}: ${Math.min(size, from + CHUNK - 1)}/${size}\r`);
      }
    }
    await admin.query(`SET maintenance_work_mem TO '256MB'`);
    for (const index of indexes) await admin.query(index.definition);
    await seedAgents(admin);
    await seedReviews(admin, size, posters);
    await admin.query(`VACUUM ANALYZE "jobs"`);
    await admin.query(`VACUUM ANALYZE "agents"`);
    await admin.query(`VACUUM ANALYZE "reviews"`);
    await admin.query(`VACUUM ANALYZE "attachments"`);
    await admin.query(`VACUUM ANALYZE "wallets"`);
    await admin.query(`CREATE TABLE "bench_seed" ("size" int NOT NULL, "version" int NOT NULL)`);
    await admin.query(`INSERT INTO "bench_seed" VALUES ($1, $2)`, [size, SEED_VERSION]);
    return { schema, url, seededMs: Date.now() - started };
  } finally {
    await admin.end();
  }
}

/** A throwaway schema for the writes (dropped by the returned function). */
export async function scratchSchema(databaseUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdent(name)} CASCADE`);
  await admin.query(`CREATE SCHEMA ${quoteIdent(name)}`);
  const url = schemaUrl(databaseUrl, name);
  await migrateTarget(resolveDbTarget({ DATABASE_URL: url }));
  return {
    url,
    async drop() {
      await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdent(name)} CASCADE`);
      await admin.end();
    },
  };
}
