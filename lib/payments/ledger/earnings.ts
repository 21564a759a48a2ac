// Money in and out of one wallet, from the settlements ledger (succeeded rows only, each with
// its transaction hash) and, for protected payments, their holds and releases: what its agents
// earned (per agent, per UTC month), what it spent on its jobs (per UTC month), what is still
// held in escrow or went back to the poster, and the payments themselves, newest first. Sums
// are done by the database; only one page of transactions is loaded.
//
// Earned and spent count money that reached the agent for good: a pay-now payment when it
// settles, a protected payment only as it is released (its captures, at their time; the agent
// gets the capture minus the platform's fee, the poster spent the whole capture). Money still
// held, or refunded to the poster, is never earned nor spent: it is in `escrow` only.
import { type Address, getAddress } from "viem";
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { decodeCursor, toPage } from "@/lib/kernel/pagination";
import { atomicToUsdc } from "@/lib/shared/money";
import type { MyEarningsQuery } from "@/lib/shared/schemas/me";
import type { MyEarningsView, MyTransactionView } from "@/lib/shared/view-types";

type Direction = MyTransactionView["direction"];
type EscrowState = NonNullable<MyTransactionView["escrow"]>["state"];

/**
 * Every settled payment that concerns `wallet`, once per direction: `earned` when the bid's
 * agent is operated by the wallet (payee or operator), `spent` when the job is the wallet's.
 * Two indexed paths (agents by wallet → proposals → settlements; jobs by poster →
 * settlements) instead of one scan of the whole ledger. `id` is unique per row and direction
 * (a wallet paying its own agent sees both), the key of the keyset pages. A protected payment
 * (scheme `auth-capture`) comes with its hold: where its money is now.
 */
function mine(wallet: Address) {
  // A constant of this module, not input: written into the SQL as a literal.
  const columns = (direction: Direction) => Prisma.sql`
    s."id" || ${Prisma.raw(`'-${direction}'`)} AS "id", ${Prisma.raw(`'${direction}'`)} AS "direction",
    COALESCE(s."settledAt", s."updatedAt") AS "settledAt", s."txHash", s."network",
    s."jobId", j."title" AS "jobTitle", s."proposalId", p."agentId", a."name" AS "agentName",
    s."amountAtomic", s."payer", s."payTo", s."scheme"::text AS "scheme",
    h."id" AS "holdId", h."state"::text AS "escrowState",
    h."amountAtomic" - h."capturedAtomic" - h."returnedAtomic" AS "heldAtomic",
    h."capturedAtomic", h."feeAtomic", h."returnedAtomic"`;
  return Prisma.sql`(
    SELECT ${columns("earned")}
    FROM "agents" a
    JOIN "proposals" p ON p."agentId" = a."id"
    JOIN "settlements" s ON s."jobId" = p."jobId" AND s."proposalId" = p."id"
    JOIN "jobs" j ON j."id" = s."jobId"
    LEFT JOIN "escrow_holds" h ON h."settlementId" = s."id"
    WHERE (a."walletAddress" = ${wallet} OR a."operatorAddress" = ${wallet})
      AND s."status" = 'succeeded' AND s."txHash" IS NOT NULL
    UNION ALL
    SELECT ${columns("spent")}
    FROM "jobs" j
    JOIN "settlements" s ON s."jobId" = j."id"
    JOIN "proposals" p ON p."id" = s."proposalId"
    JOIN "agents" a ON a."id" = p."agentId"
    LEFT JOIN "escrow_holds" h ON h."settlementId" = s."id"
    WHERE j."posterAddress" = ${wallet}
      AND s."status" = 'succeeded' AND s."txHash" IS NOT NULL
  ) AS mine`;
}

/**
 * The money that reached the agent for good, one row per movement: each pay-now payment at
 * its settlement, each succeeded capture of a protected payment at its decision (the agent's
 * side net of the fee, the poster's side with it). What `earned` and `spent` add up.
 */
function paidOut(wallet: Address) {
  return Prisma.sql`(
    SELECT mine."direction", mine."agentId", mine."agentName",
           COALESCE(c."decidedAt", c."createdAt", mine."settledAt") AS "at",
           CASE WHEN mine."scheme" = 'exact' THEN mine."amountAtomic"
                WHEN mine."direction" = 'earned' THEN c."amountAtomic" - c."feeAtomic"
                ELSE c."amountAtomic" END AS "amountAtomic"
    FROM ${mine(wallet)}
    LEFT JOIN "escrow_actions" c
      ON mine."scheme" <> 'exact' AND c."holdId" = mine."holdId"
     AND c."kind" = 'capture' AND c."status" = 'succeeded'
    WHERE mine."scheme" = 'exact' OR c."id" IS NOT NULL
  ) AS paid`;
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
  scheme: string;
  holdId: string | null;
  escrowState: EscrowState | null;
  heldAtomic: bigint | null;
  capturedAtomic: bigint | null;
  feeAtomic: bigint | null;
  returnedAtomic: bigint | null;
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

interface EscrowRow {
  direction: Direction;
  payments: number;
  held: string;
  released: string;
  fee: string;
  refunded: string;
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
  const [rows, months, agents, escrow] = await Promise.all([
    db.$queryRaw<TransactionRow[]>`
      SELECT * FROM ${mine(wallet)} ${keyset}
      ORDER BY "settledAt" DESC, "id" DESC LIMIT ${query.limit + 1}`,
    db.$queryRaw<MonthRow[]>`
      SELECT "direction", to_char("at", 'YYYY-MM') AS "month",
             SUM("amountAtomic")::text AS "total", COUNT(*)::int AS "payments"
      FROM ${paidOut(wallet)} GROUP BY 1, 2 ORDER BY 2 DESC`,
    db.$queryRaw<AgentRow[]>`
      SELECT "agentId", "agentName", SUM("amountAtomic")::text AS "total",
             COUNT(*)::int AS "payments"
      FROM ${paidOut(wallet)} WHERE "direction" = 'earned'
      GROUP BY 1, 2 ORDER BY SUM("amountAtomic") DESC, "agentId"`,
    db.$queryRaw<EscrowRow[]>`
      SELECT "direction", COUNT(*)::int AS "payments", SUM("heldAtomic")::text AS "held",
             SUM("capturedAtomic" - "feeAtomic")::text AS "released",
             SUM("feeAtomic")::text AS "fee", SUM("returnedAtomic")::text AS "refunded"
      FROM ${mine(wallet)} WHERE "holdId" IS NOT NULL GROUP BY 1`,
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
      escrow: { earned: escrowTotals(escrow, "earned"), spent: escrowTotals(escrow, "spent") },
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

function escrowTotals(rows: EscrowRow[], direction: Direction) {
  const row = rows.find((candidate) => candidate.direction === direction);
  const usdc = (atomic: string | undefined) => atomicToUsdc(BigInt(atomic ?? 0));
  return {
    payments: row?.payments ?? 0,
    heldUsdc: usdc(row?.held),
    releasedUsdc: usdc(row?.released),
    feeUsdc: usdc(row?.fee),
    refundedUsdc: usdc(row?.refunded),
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
    mode: row.scheme === "exact" ? "now" : "escrow",
    escrow: row.holdId
      ? {
          state: row.escrowState!,
          heldUsdc: atomicToUsdc(BigInt(row.heldAtomic ?? 0)),
          releasedUsdc: atomicToUsdc(BigInt(row.capturedAtomic ?? 0) - BigInt(row.feeAtomic ?? 0)),
          feeUsdc: atomicToUsdc(BigInt(row.feeAtomic ?? 0)),
          refundedUsdc: atomicToUsdc(BigInt(row.returnedAtomic ?? 0)),
        }
      : null,
  };
}
