// The end of a run: once the load has stopped and every dependency is back, the invariants are
// read from the database (directly, not through the proxy), the chain and the receivers.
import pg from "pg";
import { type Address, createPublicClient, http, parseAbiItem } from "viem";
import { LOCAL_TOKEN_ADDRESS } from "@/dev/local-chain";
import type { RequestRecord } from "./recorder";
import type { Subscription } from "./webhooks";
import { receivedById } from "./webhooks";

export interface Invariant {
  name: string;
  measured: string;
  pass: boolean;
  /** Examples of what broke it. */
  details: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(limitMs: number, done: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (await done()) return true;
    await sleep(1_000);
  }
  return done();
}

/** Where a 2xx write must show in the database: a query that finds it by the id it answered. */
const PERSISTED: Record<string, (r: RequestRecord) => { sql: string; value?: string } | undefined> =
  {
    "POST /api/v1/jobs": (r) => ({ sql: `SELECT 1 FROM jobs WHERE id = $1`, value: r.createdId }),
    "POST /api/v1/agents": (r) => ({
      sql: `SELECT 1 FROM agents WHERE id = $1`,
      value: r.createdId,
    }),
    "POST /api/v1/webhooks": (r) => ({
      sql: `SELECT 1 FROM webhook_subscriptions WHERE id = $1`,
      value: r.createdId,
    }),
    "POST /api/v1/jobs/:id/proposals": (r) => ({
      sql: `SELECT 1 FROM proposals WHERE id = $1`,
      value: r.createdId,
    }),
    "POST /api/v1/jobs/:id/accept": (r) => ({
      sql: `SELECT 1 FROM jobs WHERE id = $1 AND "acceptedProposalId" IS NOT NULL`,
      value: r.path.split("/")[4],
    }),
    "POST /api/v1/jobs/:id/deliver": (r) => ({
      sql: `SELECT 1 FROM jobs WHERE id = $1 AND status IN ('delivered', 'completed')
            AND EXISTS (SELECT 1 FROM attachments WHERE "jobId" = $1)`,
      value: r.path.split("/")[4],
    }),
    "POST /api/v1/jobs/:id/complete": (r) => ({
      sql: `SELECT 1 FROM jobs WHERE id = $1 AND status = 'completed'
            AND EXISTS (SELECT 1 FROM reviews WHERE "jobId" = $1)`,
      value: r.path.split("/")[4],
    }),
    "POST /api/jobs/:id/settle": (r) => ({
      sql: `SELECT 1 FROM settlements WHERE "txHash" = $1 AND status = 'succeeded'`,
      value: r.txHash,
    }),
  };

async function writesPersisted(db: pg.Client, records: RequestRecord[]): Promise<Invariant> {
  const writes = records.filter(
    (r) => r.status >= 200 && r.status < 300 && PERSISTED[r.endpoint] !== undefined,
  );
  const missing: string[] = [];
  for (const record of writes) {
    const query = PERSISTED[record.endpoint]!(record);
    if (!query?.value) {
      missing.push(`${record.endpoint} answered ${record.status} without an id`);
      continue;
    }
    const { rowCount } = await db.query(query.sql, [query.value]);
    if (!rowCount) missing.push(`${record.endpoint} ${query.value} (at ${record.start} ms)`);
  }
  return {
    name: "2xx writes persisted",
    measured: `${writes.length - missing.length}/${writes.length}`,
    pass: missing.length === 0,
    details: missing.slice(0, 10),
  };
}

interface SettlementRow {
  id: string;
  jobId: string;
  payer: string;
  amountAtomic: string;
  txHash: string | null;
  status: string;
  scheme: string;
}

/**
 * Every paid job's transfer is on chain exactly once (a Transfer from its payer, of its amount,
 * in its transaction), every transfer out of a payer's wallet belongs to a succeeded
 * settlement, and no job is paid twice.
 */
async function paymentsMatchChain(
  db: pg.Client,
  rpcUrl: string,
  payers: Set<string>,
): Promise<Invariant[]> {
  const { rows } = await db.query<SettlementRow>(
    `SELECT id, "jobId", lower(payer) AS payer, "amountAtomic"::text AS "amountAtomic", "txHash", status, scheme::text AS scheme FROM settlements`,
  );
  const chain = createPublicClient({ transport: http(rpcUrl) });
  const transfer = parseAbiItem(
    "event Transfer(address indexed from, address indexed to, uint256 value)",
  );
  const outflows: { txHash: string; from: string; value: bigint }[] = [];
  for (const payer of payers) {
    const logs = await chain.getLogs({
      address: LOCAL_TOKEN_ADDRESS,
      event: transfer,
      args: { from: payer as Address },
      fromBlock: 0n,
      toBlock: "latest",
    });
    for (const log of logs) {
      outflows.push({ txHash: log.transactionHash!, from: payer, value: log.args.value! });
    }
  }
  const succeeded = rows.filter((row) => row.status === "succeeded");
  const byTx = new Map<string, typeof outflows>();
  for (const out of outflows) byTx.set(out.txHash, [...(byTx.get(out.txHash) ?? []), out]);
  const notFoundOnce: string[] = [];
  for (const row of succeeded) {
    const found = (byTx.get(row.txHash ?? "") ?? []).filter(
      (out) => out.from === row.payer && out.value === BigInt(row.amountAtomic),
    );
    if (found.length !== 1) {
      notFoundOnce.push(`job ${row.jobId}: ${found.length} transfers in ${row.txHash}`);
    }
  }
  const settledTx = new Set(succeeded.map((row) => row.txHash));
  const orphans = outflows.filter((out) => !settledTx.has(out.txHash));
  const jobsPaid = new Map<string, number>();
  for (const row of succeeded) jobsPaid.set(row.jobId, (jobsPaid.get(row.jobId) ?? 0) + 1);
  // A charge is a transfer out of a payer; each job's settlements (any status) with a transfer.
  const chargesPerJob = new Map<string, number>();
  for (const row of rows) {
    const charged = (byTx.get(row.txHash ?? "") ?? []).filter((out) => out.from === row.payer);
    if (charged.length > 0) {
      chargesPerJob.set(row.jobId, (chargesPerJob.get(row.jobId) ?? 0) + charged.length);
    }
  }
  const doubles = [...chargesPerJob.entries()].filter(([, count]) => count > 1);
  return [
    {
      name: "paid jobs matched on chain (transfer found exactly once)",
      measured: `${succeeded.length - notFoundOnce.length}/${succeeded.length}`,
      pass: notFoundOnce.length === 0,
      details: notFoundOnce.slice(0, 10),
    },
    {
      name: "transfers without their job",
      measured: String(orphans.length),
      pass: orphans.length === 0,
      details: orphans.slice(0, 10).map((o) => `${o.from} ${o.value} in ${o.txHash}`),
    },
    {
      name: "double charges (jobs charged more than once)",
      measured: String(doubles.length + [...jobsPaid.values()].filter((n) => n > 1).length),
      pass: doubles.length === 0 && [...jobsPaid.values()].every((n) => n <= 1),
      details: doubles.slice(0, 10).map(([job, n]) => `job ${job}: ${n} transfers`),
    },
  ];
}

/** Waits until the outbox is drained: every event fanned out, nothing pending. */
export async function waitForWebhookDrain(db: pg.Client, limitMs: number): Promise<boolean> {
  return waitUntil(limitMs, async () => {
    const { rows } = await db.query<{ pending: string; behind: boolean }>(
      `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::text AS pending,
              COALESCE((SELECT cursor FROM webhook_dispatch WHERE id = 1), 0)
                < COALESCE((SELECT max(id) FROM events), 0) AS behind`,
    );
    return rows[0]!.pending === "0" && !rows[0]!.behind;
  });
}

async function webhooksDelivered(
  db: pg.Client,
  subscriptions: Subscription[],
): Promise<Invariant[]> {
  const invariants: Invariant[] = [];
  const { rows: events } = await db.query<{ id: string }>(
    `SELECT id::text FROM events ORDER BY id`,
  );
  for (const [i, sub] of subscriptions.entries()) {
    const { rows } = await db.query<{ startAfterEventId: string; status: string }>(
      `SELECT "startAfterEventId"::text AS "startAfterEventId", status::text AS status
         FROM webhook_subscriptions WHERE id = $1`,
      [sub.id],
    );
    const subscription = rows[0];
    const expected = new Set(
      events
        .filter((e) => subscription && BigInt(e.id) > BigInt(subscription.startAfterEventId))
        .map((e) => `evt_${e.id}`),
    );
    const { byId, badSignatures } = receivedById(sub.receiver);
    const missing = [...expected].filter((id) => !byId.has(id));
    const unknown = [...byId.keys()].filter((id) => !expected.has(id));
    const redelivered = [...byId.values()].reduce((sum, n) => sum + n - 1, 0);
    const { rows: states } = await db.query<{ status: string; count: string }>(
      `SELECT status::text, count(*)::text FROM webhook_deliveries WHERE "subscriptionId" = $1 GROUP BY status`,
      [sub.id],
    );
    const pass =
      subscription?.status === "active" &&
      missing.length === 0 &&
      unknown.length === 0 &&
      badSignatures === 0;
    invariants.push({
      name: `webhook ${i + 1}: every committed event delivered, by id`,
      measured:
        `${expected.size - missing.length}/${expected.size} ids` +
        ` (${redelivered} repeats of an id, ${unknown.length} unknown, ${badSignatures} bad signatures;` +
        ` subscription ${subscription?.status ?? "gone"}; outbox ${states.map((s) => `${s.status} ${s.count}`).join(", ")})`,
      pass,
      details: [
        ...missing.slice(0, 5).map((id) => `missing ${id}`),
        ...unknown.slice(0, 5).map((id) => `unknown ${id}`),
      ],
    });
  }
  return invariants;
}

async function nothingPending(db: pg.Client, limitMs: number): Promise<Invariant> {
  const count = async () => {
    const { rows } = await db.query<{ settlements: string; actions: string }>(
      `SELECT (SELECT count(*) FROM settlements WHERE status = 'pending')::text AS settlements,
              (SELECT count(*) FROM escrow_actions WHERE status = 'pending')::text AS actions`,
    );
    return rows[0]!;
  };
  await waitUntil(limitMs, async () => {
    const now = await count();
    return now.settlements === "0" && now.actions === "0";
  });
  const left = await count();
  const { rows } = await db.query<{ id: string; lastError: string | null }>(
    `SELECT id, "lastError" FROM settlements WHERE status = 'pending' LIMIT 5`,
  );
  return {
    name: "settlements and escrow actions pending after the reconciler's window",
    measured: `${left.settlements} settlements, ${left.actions} escrow actions`,
    pass: left.settlements === "0" && left.actions === "0",
    details: rows.map((row) => `${row.id}: ${row.lastError ?? ""}`),
  };
}

/**
 * Lines that no fault explains: the patterns tests fail on (tests/helpers/server-logs.ts's
 * UNHANDLED_ERROR_LINE, copied: that module registers Vitest hooks when imported).
 */
export const UNEXPECTED_LOG_LINE =
  /Unhandled error|Request handler failed|uncaughtException|unhandledRejection|triggerUncaughtException|^\s*⨯ /;

export function errorLog(logs: Record<string, string>): Invariant {
  const offending: string[] = [];
  let total = 0;
  for (const [name, text] of Object.entries(logs)) {
    for (const line of text.split("\n")) {
      if (/error|fail|refused|terminat|unavailable/i.test(line)) total++;
      if (UNEXPECTED_LOG_LINE.test(line)) offending.push(`${name}: ${line.trim().slice(0, 200)}`);
    }
  }
  return {
    name: "unexpected error log lines",
    measured: `${offending.length} (of ${total} lines naming an error)`,
    pass: offending.length === 0,
    details: [...new Set(offending)].slice(0, 10),
  };
}

export async function runChecks(options: {
  databaseUrl: string;
  rpcUrl: string;
  records: RequestRecord[];
  payers: Set<string>;
  subscriptions: Subscription[];
  logs: () => Record<string, string>;
  log: (line: string) => void;
}): Promise<Invariant[]> {
  const db = new pg.Client({ connectionString: options.databaseUrl });
  await db.connect();
  try {
    options.log("checks: waiting for settlements to be decided (the reconciler's window)");
    const pending = await nothingPending(db, 90_000);
    options.log("checks: waiting for the webhook outbox to drain");
    const drained = await waitForWebhookDrain(db, 180_000);
    // The last deliveries' answers reach the receivers a moment after their rows are updated.
    await sleep(2_000);
    const invariants = [
      await writesPersisted(db, options.records),
      ...(await paymentsMatchChain(db, options.rpcUrl, options.payers)),
      ...(await webhooksDelivered(db, options.subscriptions)),
      pending,
      errorLog(options.logs()),
    ];
    if (!drained) {
      invariants.push({
        name: "webhook outbox drained within 180 s",
        measured: "no",
        pass: false,
        details: [],
      });
    }
    return invariants;
  } finally {
    await db.end();
  }
}
