// What reputation is made of, in one place: the smallest amount a budget or bid may be, and
// which payments count toward a Verified badge, a review's weight and an agent's completed
// jobs. Only real work paid to someone else counts: a succeeded payment of at least the
// minimum, whose payer is neither the payee nor the agent's operator; for a protected payment,
// only what was released to the agent. Dust, self-dealing and refunded money buy nothing.
import { getConfig } from "@/lib/platform/config";
import { DomainError } from "@/lib/platform/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";

/** The smallest budget or bid (MIN_AMOUNT_USDC), in atomic units. */
export function minimumAmountAtomic(): bigint {
  return getConfig().MIN_AMOUNT_USDC;
}

/** 400 `amount_below_minimum` for a budget or bid under MIN_AMOUNT_USDC. */
export function assertAtLeastMinimum(field: string, atomic: bigint): void {
  const minimum = minimumAmountAtomic();
  if (atomic >= minimum) return;
  throw new DomainError(
    "invalid",
    `${field} must be at least ${formatUsdc(atomicToUsdc(minimum), "plain")} USDC`,
    {},
    "amount_below_minimum",
  );
}

/**
 * The payments that earn reputation, one row each: `jobId`, `agentId`, `payer`,
 * `amountAtomic`. A job has at most one succeeded payment (settlements_one_live_per_job).
 * `agentIds` narrows it to those agents' payments.
 *
 * A pay-now payment counts in full once settled. A protected one counts only for what reaches
 * the agent: what was captured (released, or the agent's part of a split), or the whole rest
 * while its release is being sent (`releasing`: the completion that starts it earns the badge
 * in its own transaction; a release that fails puts the hold back to `held` and it stops
 * counting). Held, refunded and reclaimed money never counts, whatever the job's state.
 */
export function reputablePaymentsSql(agentIds?: readonly string[]): Prisma.Sql {
  return paymentsSql(
    agentIds ? Prisma.sql`AND p."agentId" IN (${Prisma.join(agentIds)})` : Prisma.empty,
  );
}

/** reputablePaymentsSql's rows, with `narrowed` (SQL over `p`, the proposal) added. */
function paymentsSql(narrowed: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(
    SELECT "jobId", "agentId", "payer", "amountAtomic"
    FROM (
      SELECT s."jobId", p."agentId", lower(s."payer") AS "payer",
             lower(s."payTo") AS "payTo", lower(a."operatorAddress") AS "operator",
             CASE WHEN s."scheme" = 'exact' THEN s."amountAtomic"
                  WHEN h."state" = 'releasing' THEN h."amountAtomic" - h."returnedAtomic"
                  ELSE COALESCE(h."capturedAtomic", 0) END AS "amountAtomic"
      FROM "settlements" s
      JOIN "proposals" p ON p."id" = s."proposalId"
      JOIN "agents" a ON a."id" = p."agentId"
      LEFT JOIN "escrow_holds" h ON h."settlementId" = s."id"
      WHERE s."status" = 'succeeded'
        ${narrowed}
    ) settled
    WHERE "amountAtomic" > 0
      AND "amountAtomic" >= ${minimumAmountAtomic()}
      AND "payer" <> "payTo"
      AND "payer" <> "operator"
  )`;
}

/**
 * Per agent: the reviews and completed jobs that count (those of reputable payments), the
 * distinct posters who paid it and the total they paid. Columns: `agentId`, `ratingSum`,
 * `reviewCount`, `completedJobs`, `payers`, `paidAtomic`; agents with none are absent.
 */
export function agentReputationSql(agentIds?: readonly string[]): Prisma.Sql {
  return reputationSql(reputablePaymentsSql(agentIds));
}

/**
 * agentReputationSql's row of one agent (none when nothing counts), `agentId` an SQL
 * expression: an outer column, for a LATERAL join beside each agent of a page (agent-rows.ts),
 * so that one statement text serves any page. The outer query's alias must be none of those
 * used inside (s, p, a, h, settled, paid, j, r), which would capture the column.
 */
export function oneAgentReputationSql(agentId: Prisma.Sql): Prisma.Sql {
  return reputationSql(paymentsSql(Prisma.sql`AND p."agentId" = ${agentId}`));
}

function reputationSql(payments: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(
    SELECT paid."agentId",
           COALESCE(sum(r."rating"), 0)::int AS "ratingSum",
           count(r."id")::int AS "reviewCount",
           count(*) FILTER (WHERE j."status" = 'completed' AND j."assignedAgentId" = paid."agentId")::int
             AS "completedJobs",
           count(DISTINCT paid."payer")::int AS "payers",
           sum(paid."amountAtomic")::bigint AS "paidAtomic"
    FROM ${payments} paid
    JOIN "jobs" j ON j."id" = paid."jobId"
    LEFT JOIN "reviews" r ON r."jobId" = paid."jobId" AND r."agentId" = paid."agentId"
    GROUP BY paid."agentId"
  )`;
}

/**
 * Gives the job's poster the Verified badge when this job's payment earns it (a reputable
 * payment, above), in the caller's transaction; the badge then stays. Called wherever money
 * reaches an agent: a completion (pay-now, or a protected payment's release starting), and a
 * protected payment's capture confirmed (which covers the auto-release and an admin's release
 * or split, whose jobs complete without the poster).
 */
export async function awardBadge(tx: Prisma.TransactionClient, jobId: string): Promise<void> {
  const [earned] = await tx.$queryRaw<{ poster: string }[]>`
    SELECT j."posterAddress" AS "poster" FROM "jobs" j
     WHERE j."id" = ${jobId}
       AND EXISTS (SELECT FROM ${reputablePaymentsSql()} paid WHERE paid."jobId" = j."id")`;
  if (!earned) return;
  await tx.wallet.updateMany({
    where: { address: earned.poster, verified: false },
    data: { verified: true, verifiedAt: new Date() },
  });
}
