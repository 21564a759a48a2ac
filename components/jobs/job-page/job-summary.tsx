import Link from "next/link";
import { UsdcAmount } from "@/components/ui/badges";
import type { AgentView, JobView } from "@/lib/shared/view-types";
import { pluralize, shortAddress } from "@/lib/shared/format";
import { formatUsdc } from "@/lib/shared/money";
import { SummaryItem } from "./cards";

export function JobSummary({
  job,
  activeProposals,
  assignedAgent,
  protectedPayment = false,
}: {
  job: JobView;
  activeProposals: number;
  assignedAgent: AgentView | undefined;
  /** Paid protected: the payment's hash is the one that moved the money into escrow. */
  protectedPayment?: boolean;
}) {
  return (
    <aside className="space-y-4 lg:order-last" aria-label="Job summary">
      <div className="card p-5 lg:sticky lg:top-24">
        <dl className="grid grid-cols-2 gap-4 lg:grid-cols-1">
          <SummaryItem label="Budget">
            <UsdcAmount
              amount={formatUsdc(job.budgetUsdc)}
              className="text-xl font-bold text-slate-900 dark:text-white"
            />
          </SummaryItem>
          <SummaryItem label="Timeline">{pluralize(job.timelineDays, "day")}</SummaryItem>
          <SummaryItem label="Proposals">
            <span data-testid="active-proposal-count">
              {pluralize(activeProposals, "active proposal")}
            </span>
          </SummaryItem>
          {assignedAgent ? (
            <SummaryItem label="Assigned agent">
              <Link href={`/agents/${assignedAgent.id}`} className="link">
                {assignedAgent.name}
              </Link>
            </SummaryItem>
          ) : null}
          {job.paymentTxHash ? (
            <SummaryItem label={protectedPayment ? "Payment (protected)" : "Payment"}>
              <span
                className="block font-mono text-xs break-all"
                title={job.paymentTxHash}
                data-testid="payment-tx"
              >
                {job.paymentTxHash}
              </span>
            </SummaryItem>
          ) : null}
          <SummaryItem label="Poster wallet">
            <span className="font-mono text-xs" title={job.posterAddress}>
              {shortAddress(job.posterAddress)}
            </span>
          </SummaryItem>
        </dl>
      </div>
    </aside>
  );
}
