// Money in and out of one wallet, from the settlements ledger (succeeded rows only, each with
// its transaction hash): what its agents earned (per agent, per UTC month), what it spent on
// its jobs (per UTC month), and the transactions themselves, newest first. Sums are done by
// the database; only one page of transactions is loaded.
import { type Address, getAddress } from "viem";
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { decodeCursor, toPage } from "@/lib/kernel/pagination";
import { atomicToUsdc } from "@/lib/shared/money";
import type { MyEarningsQuery } from "@/lib/shared/schemas/me";
import type { MyEarningsView, MyTransactionView } from "@/lib/shared/view-types";

type Direction = MyTransactionView["direction"];

/**
 * Every settled payment that concerns `wallet`, once per direction: `earned` when the bid's
 * agent is operated by the wallet (payee or operator), `spent` when the job is the wallet's.
 * Two indexed paths (agents by wallet → proposals → settlements; jobs by poster →
 * settlements) instead of one scan of the whole ledger. `id` is unique per row and direction
 * (a wallet paying its own agent sees both), the key of the keyset pages.
 */
function mine(wallet: Address) {
  // A constant of this module, not input: written into the SQL as a literal.
  const columns = (direction: Direction) => Prisma.sql`
    s."id" || ${Prisma.raw(`'-${direction}'`)} AS "id", ${Prisma.raw(`'${direction}'`)} AS "direction",
    COALESCE(s."settledAt", s."updatedAt") AS "settledAt", s."txHash", s."network",
    s."jobId", j."title" AS "jobTitle", s."proposalId", p."agentId", a."name" AS "agentName",
    s."amountAtomic", s."payer", s."payTo"`;
  return Prisma.sql`(
    SELECT ${columns("earned")}
    FROM "agents" a
    JOIN "proposals" p ON p."agentId" = a."id"
    JOIN "settlements" s ON s."jobId" = p."jobId" AND s."proposalId" = p."id"
    JOIN "jobs" j ON j."id" = s."jobId"
    WHERE (a."walletAddress" = ${wallet} OR a."operatorAddress" = ${wallet})
      AND s."status" = 'succeeded' AND s."txHash" IS NOT NULL
    UNION ALL
    SELECT ${columns("spent")}
    FROM "jobs" j
    JOIN "settlements" s ON s."jobId" = j."id"
    JOIN "proposals" p ON p."id" = s."proposalId"
    JOIN "agents" a ON a."id" = p."agentId"
    WHERE j."posterAddress" = ${wallet}
      AND s."status" = 'succeeded' AND s."txHash" IS NOT NULL
  ) AS mine`;
}

interface TransactionRow {
  id: string;
  direction: Direction;
  settledAt: Date;
  txHash: string;
  network: string;
  jobId: string;
  jobTitle: string;
  proposalId: string;
  agentId: string;
  agentName: string;
  amountAtomic: bigint;
  payer: string;
  payTo: string;
}

interface MonthRow {
  direction: Direction;
  month: string;
  total: string;
  payments: number;
}

interface AgentRow {
  agentId: string;
  agentName: string;
  total: string;
  payments: number;
}

export async function getMyEarnings(
  db: Db,
  wallet: Address,
  query: MyEarningsQuery,
): Promise<{ view: MyEarningsView; nextCursor: string | null }> {
  const after = decodeCursor(query.cursor);
  const keyset = after
    ? Prisma.sql`WHERE ("settledAt", "id") < (${after.createdAt}::timestamp(3), ${after.id})`
    : Prisma.empty;
  const [rows, months, agents] = await Promise.all([
    db.$queryRaw<TransactionRow[]>`
      SELECT * FROM ${mine(wallet)} ${keyset}
      ORDER BY "settledAt" DESC, "id" DESC LIMIT ${query.limit + 1}`,
    db.$queryRaw<MonthRow[]>`
      SELECT "direction", to_char("settledAt", 'YYYY-MM') AS "month",
             SUM("amountAtomic")::text AS "total", COUNT(*)::int AS "payments"
      FROM ${mine(wallet)} GROUP BY 1, 2 ORDER BY 2 DESC`,
    db.$queryRaw<AgentRow[]>`
      SELECT "agentId", "agentName", SUM("amountAtomic")::text AS "total",
             COUNT(*)::int AS "payments"
      FROM ${mine(wallet)} WHERE "direction" = 'earned'
      GROUP BY 1, 2 ORDER BY SUM("amountAtomic") DESC, "agentId"`,
  ]);
  // The page's cursor is the last row's (settledAt, id): the same keyset as the other lists.
  const page = toPage(
    rows.map((row) => ({ ...row, createdAt: row.settledAt })),
    query.limit,
  );
  return {
    view: {
      earned: { ...totals(months, "earned"), byAgent: agents.map(agentTotal) },
      spent: totals(months, "spent"),
      transactions: page.items.map(toTransactionView),
    },
    nextCursor: page.nextCursor,
  };
}

function totals(months: MonthRow[], direction: Direction) {
  const mineOnly = months.filter((row) => row.direction === direction);
  const total = mineOnly.reduce((sum, row) => sum + BigInt(row.total), 0n);
  return {
    totalUsdc: atomicToUsdc(total),
    payments: mineOnly.reduce((sum, row) => sum + row.payments, 0),
    byMonth: mineOnly.map((row) => ({
      month: row.month,
      totalUsdc: atomicToUsdc(BigInt(row.total)),
      payments: row.payments,
    })),
  };
}

const agentTotal = (row: AgentRow) => ({
  agentId: row.agentId,
  agentName: row.agentName,
  totalUsdc: atomicToUsdc(BigInt(row.total)),
  payments: row.payments,
});

function toTransactionView(row: TransactionRow): MyTransactionView {
  return {
    direction: row.direction,
    txHash: row.txHash as `0x${string}`,
    network: row.network,
    jobId: row.jobId,
    jobTitle: row.jobTitle,
    proposalId: row.proposalId,
    agentId: row.agentId,
    agentName: row.agentName,
    amountUsdc: atomicToUsdc(BigInt(row.amountAtomic)),
    payer: getAddress(row.payer),
    payTo: getAddress(row.payTo),
    settledAt: row.settledAt.toISOString(),
  };
}
