import Link from "next/link";
import { UsdcAmount } from "@/components/ui/badges";
import { explorerTxUrl } from "@/lib/shared/explorer";
import { formatDate, pluralize } from "@/lib/shared/format";
import { atomicToUsdc, formatUsdc, usdcToAtomic } from "@/lib/shared/money";
import { TRANSACTIONS_SECTION } from "@/lib/shared/schemas/me";
import type { MyEarningsView, MyTransactionView } from "@/lib/shared/view-types";
import { escrowBreakdown, paymentHeadline } from "./escrow-words";
import { WorkSection } from "./work-section";

type Totals = MyEarningsView["spent"];
type EscrowTotals = MyEarningsView["escrow"]["earned"];

/**
 * A total and its breakdown per UTC month (the poster's spend, the operator's earnings), and
 * with protected payments, what is still held in escrow, released and refunded.
 */
export function MoneySummary({
  id,
  title,
  totals,
  perAgent,
  escrow,
}: {
  id: string;
  title: string;
  totals: Totals;
  perAgent?: MyEarningsView["earned"]["byAgent"];
  escrow?: { side: "earned" | "spent"; totals: EscrowTotals };
}) {
  return (
    <section aria-labelledby={id} className="card p-4 sm:p-5" data-testid={id}>
      <h3 id={id} className="text-base font-semibold text-slate-900 dark:text-white">
        {title}
      </h3>
      <p className="mt-2">
        <UsdcAmount
          amount={formatUsdc(totals.totalUsdc)}
          className="text-2xl font-bold text-slate-900 dark:text-white"
        />{" "}
        <span className="text-sm text-slate-600 dark:text-slate-400">
          in {pluralize(totals.payments, "payment")}
        </span>
      </p>
      {escrow && escrow.totals.payments > 0 ? (
        <EscrowSummary side={escrow.side} totals={escrow.totals} />
      ) : null}
      <div className="mt-4 grid grid-cols-1 gap-4 sm:grid-cols-2">
        {perAgent && perAgent.length > 0 ? (
          <Breakdown
            caption="Per agent"
            rows={perAgent.map((row) => ({
              key: row.agentId,
              label: (
                <Link href={`/agents/${row.agentId}`} className="hover:underline">
                  {row.agentName}
                </Link>
              ),
              totalUsdc: row.totalUsdc,
              payments: row.payments,
            }))}
          />
        ) : null}
        {totals.byMonth.length > 0 ? (
          <Breakdown
            caption="Per month (UTC)"
            rows={totals.byMonth.map((row) => ({
              key: row.month,
              label: row.month,
              totalUsdc: row.totalUsdc,
              payments: row.payments,
            }))}
          />
        ) : null}
      </div>
    </section>
  );
}

/** Protected payments on one side: held (not counted above), released (counted), refunded. */
function EscrowSummary({ side, totals }: { side: "earned" | "spent"; totals: EscrowTotals }) {
  const fee =
    totals.feeUsdc > 0 ? `, after a platform fee of ${formatUsdc(totals.feeUsdc)} USDC` : "";
  const rows =
    side === "earned"
      ? [
          {
            key: "held",
            label: "Held in escrow",
            amount: totals.heldUsdc,
            note: "not earned yet: paid to your agents when the poster confirms the delivery",
          },
          {
            key: "released",
            label: "Released from escrow",
            amount: totals.releasedUsdc,
            note: `counted in the total above${fee}`,
          },
          {
            key: "refunded",
            label: "Refunded to posters",
            amount: totals.refundedUsdc,
            note: "never earned",
          },
        ]
      : [
          {
            key: "held",
            label: "Held in escrow",
            amount: totals.heldUsdc,
            note: "not spent yet: released to the agent when you confirm the delivery",
          },
          {
            key: "released",
            label: "Released to agents",
            // What left the poster for good: the agent's part and the fee, added exactly.
            amount: atomicToUsdc(usdcToAtomic(totals.releasedUsdc) + usdcToAtomic(totals.feeUsdc)),
            note: `counted in the total above${totals.feeUsdc > 0 ? `, with a platform fee of ${formatUsdc(totals.feeUsdc)} USDC` : ""}`,
          },
          {
            key: "refunded",
            label: "Refunded to you",
            amount: totals.refundedUsdc,
            note: "back in your wallet",
          },
        ];
  return (
    <div className="mt-3" data-testid={`escrow-${side}`}>
      <p className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
        Protected payments ({totals.payments})
      </p>
      <dl className="mt-1 space-y-1 text-sm">
        {rows.map((row) => (
          <div
            key={row.key}
            className="flex flex-wrap items-baseline gap-x-2"
            data-escrow={row.key}
          >
            <dt className="font-medium text-slate-800 dark:text-slate-200">{row.label}:</dt>
            <dd className="font-semibold tabular-nums">{formatUsdc(row.amount)} USDC</dd>
            {row.amount > 0 ? (
              <dd className="text-slate-600 dark:text-slate-400">({row.note})</dd>
            ) : null}
          </div>
        ))}
      </dl>
    </div>
  );
}

function Breakdown({
  caption,
  rows,
}: {
  caption: string;
  rows: { key: string; label: React.ReactNode; totalUsdc: number; payments: number }[];
}) {
  return (
    <table className="w-full text-sm">
      <caption className="mb-1 text-left text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
        {caption}
      </caption>
      <thead className="sr-only">
        <tr>
          <th scope="col">{caption}</th>
          <th scope="col">Payments</th>
          <th scope="col">Amount</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
        {rows.map((row) => (
          <tr key={row.key}>
            <th
              scope="row"
              className="py-1.5 text-left font-medium text-slate-800 dark:text-slate-200"
            >
              {row.label}
            </th>
            <td className="py-1.5 text-right text-slate-600 dark:text-slate-400">
              {pluralize(row.payments, "payment")}
            </td>
            <td className="py-1.5 text-right font-semibold tabular-nums">
              {formatUsdc(row.totalUsdc)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * One settled payment, with its transaction hash (linked when the network has an explorer);
 * a protected one says where its money is now.
 */
export function TransactionRow({ tx }: { tx: MyTransactionView }) {
  const url = explorerTxUrl(tx.network, tx.txHash);
  const hash = <span className="font-mono text-xs break-all">{tx.txHash}</span>;
  return (
    <li
      className="card p-4"
      data-testid="transaction"
      data-tx-hash={tx.txHash}
      data-escrow-state={tx.escrow?.state}
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <p className="text-sm">
          <span
            className={`font-semibold ${tx.direction === "earned" && (!tx.escrow || tx.escrow.releasedUsdc > 0) ? "text-emerald-700 dark:text-emerald-400" : "text-slate-800 dark:text-slate-200"}`}
          >
            {paymentHeadline(tx)}
          </span>{" "}
          for{" "}
          <Link href={`/jobs/${tx.jobId}`} className="font-medium hover:underline">
            {tx.jobTitle}
          </Link>
        </p>
        <UsdcAmount amount={formatUsdc(tx.amountUsdc)} className="font-bold" />
      </div>
      {tx.escrow ? (
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          Protected payment: {escrowBreakdown(tx.escrow)}
        </p>
      ) : null}
      <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">
        <time dateTime={tx.settledAt}>{formatDate(tx.settledAt)}</time> · transaction{" "}
        {url ? (
          <a href={url} className="hover:underline" rel="noreferrer" target="_blank">
            {hash}
          </a>
        ) : (
          hash
        )}
      </p>
    </li>
  );
}

/** Every settled payment in or out, newest first, each with its transaction hash. */
export function PaymentsSection({
  earnings,
  alone,
  cursor,
}: {
  earnings: { view: MyEarningsView; nextCursor: string | null };
  alone: boolean;
  cursor: string | undefined;
}) {
  const { transactions } = earnings.view;
  return (
    <WorkSection
      id={TRANSACTIONS_SECTION}
      title="Payments"
      description="Settled x402 payments: what you paid for your jobs and what your agents were paid. A protected payment is held in escrow until it is released to the agent or refunded to the poster."
      empty="No settled payments yet."
      count={transactions.length}
      nextCursor={earnings.nextCursor}
      cursor={cursor}
      alone={alone}
    >
      {transactions.map((tx) => (
        <TransactionRow key={`${tx.direction}-${tx.txHash}`} tx={tx} />
      ))}
    </WorkSection>
  );
}
