import type { ReactNode } from "react";
import {
  CancelJobButton,
  DisputeForm,
  ResolveDisputeForm,
} from "@/components/jobs/job-page/role-actions";
import { explorerTxUrl } from "@/lib/shared/explorer";
import { formatUsdc } from "@/lib/shared/money";
import type { JobView } from "@/lib/shared/view-types";
import {
  deliveryClosed,
  disputeLines,
  type EscrowStory,
  escrowStory,
  type EscrowView,
  openDispute,
  TRANSACTION_LABELS,
} from "./escrow-story";
import { explorerAddressUrl, formatDeadline } from "./when";

const TONES: Record<EscrowStory["tone"], string> = {
  waiting: "border-sky-200 dark:border-sky-900",
  done: "border-emerald-200 dark:border-emerald-900",
  returned: "border-slate-300 dark:border-slate-700",
  alert: "border-amber-300 dark:border-amber-800",
};

/**
 * A protected payment on the job page (server component): where the money is, the amounts,
 * the escrow contract, the deadlines, the dispute, the operator's transactions, and what the
 * viewer may do about it (the poster's cancel, either party's dispute, an admin's decision).
 */
export function EscrowStatus({
  escrow,
  network,
  authorizationTx,
  job,
  agentName,
  viewer,
  viewerIsPoster,
  viewerIsAgent,
  viewerIsAdmin,
  disputesAvailable,
  now,
}: {
  escrow: EscrowView;
  network: string;
  /** The transaction that moved the money into escrow. */
  authorizationTx: string | null;
  job: JobView;
  agentName: string;
  viewer: string | null;
  viewerIsPoster: boolean;
  viewerIsAgent: boolean;
  viewerIsAdmin: boolean;
  /** An admin is configured to resolve disputes (ADMIN_ADDRESSES); else none can be opened. */
  disputesAvailable: boolean;
  now: number;
}) {
  const story = escrowStory({ escrow, jobStatus: job.status, agentName, viewerIsPoster, now });
  const held = escrow.state === "held";
  const disputeOpen = openDispute(escrow);
  const working = job.status === "in_progress" || job.status === "delivered";
  const contractUrl = explorerAddressUrl(network, escrow.escrow);
  return (
    <section
      aria-labelledby="escrow-title"
      className={`card p-5 sm:p-6 ${TONES[story.tone]}`}
      data-testid="escrow-status"
      data-state={escrow.state}
    >
      <p className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
        Protected payment
      </p>
      <h2 id="escrow-title" className="mt-1 text-base font-semibold" data-testid="escrow-title">
        {story.title}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400" data-testid="escrow-story">
        {story.body}
      </p>

      {escrow.dispute ? (
        <Dispute dispute={escrow.dispute} posterAddress={job.posterAddress} viewer={viewer} />
      ) : null}

      <dl className="mt-4 grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
        <Item term="In escrow now" testId="escrow-held">
          {formatUsdc(escrow.heldUsdc)} USDC
        </Item>
        {escrow.releasedUsdc > 0 ? (
          <Item term={`Released to ${agentName}`} testId="escrow-released">
            {formatUsdc(escrow.releasedUsdc)} USDC
          </Item>
        ) : null}
        {escrow.feeUsdc > 0 ? (
          <Item term="Platform fee">{formatUsdc(escrow.feeUsdc)} USDC</Item>
        ) : null}
        {escrow.refundedUsdc > 0 ? (
          <Item
            term={viewerIsPoster ? "Returned to you" : "Returned to the poster"}
            testId="escrow-refunded"
          >
            {formatUsdc(escrow.refundedUsdc)} USDC
          </Item>
        ) : null}
        {held ? (
          <>
            <Item term="Agent delivers by">{formatDeadline(escrow.deliverBy)}</Item>
            {escrow.releaseAt ? (
              <Item term="Released automatically on">{formatDeadline(escrow.releaseAt)}</Item>
            ) : null}
            <Item term="Held at most until">{formatDeadline(escrow.heldUntil)}</Item>
          </>
        ) : null}
        <Item term="Escrow contract" wide>
          {contractUrl ? (
            <a
              href={contractUrl}
              className="link font-mono text-xs break-all"
              target="_blank"
              rel="noreferrer"
            >
              {escrow.escrow}
            </a>
          ) : (
            <span className="font-mono text-xs break-all" data-testid="escrow-contract">
              {escrow.escrow}
            </span>
          )}
        </Item>
        <Item term="Payment id in the escrow" wide>
          <span className="font-mono text-xs break-all">{escrow.paymentInfoHash}</span>
        </Item>
      </dl>

      <Transactions escrow={escrow} network={network} authorizationTx={authorizationTx} />

      <div className="mt-4 space-y-3 empty:hidden">
        {viewerIsPoster && held && !disputeOpen && job.status === "in_progress" ? (
          deliveryClosed(escrow, now) ? (
            <div className="space-y-2">
              <p className="text-sm text-slate-600 dark:text-slate-400">
                Nothing was delivered by {formatDeadline(escrow.deliverBy)}: you can end the job.
              </p>
              <CancelJobButton jobId={job.id} />
            </div>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="cancel-from">
              If nothing is delivered by {formatDeadline(escrow.deliverBy)}, you can cancel here and
              get the money back.
            </p>
          )
        ) : null}
        {(viewerIsPoster || viewerIsAgent) &&
        disputesAvailable &&
        held &&
        !escrow.dispute &&
        working ? (
          <DisputeForm jobId={job.id} />
        ) : null}
        {viewerIsAdmin && held && disputeOpen ? (
          <div className="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
            <h3 className="mb-3 text-sm font-semibold">Resolve the dispute (admin)</h3>
            <ResolveDisputeForm jobId={job.id} heldUsdc={escrow.heldUsdc} />
          </div>
        ) : null}
      </div>
    </section>
  );
}

function Dispute({
  dispute,
  posterAddress,
  viewer,
}: {
  dispute: NonNullable<EscrowView["dispute"]>;
  posterAddress: string;
  viewer: string | null;
}) {
  const lines = disputeLines(dispute, posterAddress, viewer);
  return (
    <div
      className="mt-4 rounded-lg bg-amber-50 px-4 py-3 text-sm text-amber-950 dark:bg-amber-950/40 dark:text-amber-100"
      data-testid="escrow-dispute"
    >
      <p className="font-medium">{lines.opened}</p>
      <blockquote className="mt-1 break-words whitespace-pre-line">{dispute.reason}</blockquote>
      {lines.resolved ? (
        <>
          <p className="mt-3 font-medium">{lines.resolved}</p>
          {dispute.resolutionReason ? (
            <blockquote className="mt-1 break-words whitespace-pre-line">
              {dispute.resolutionReason}
            </blockquote>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

function Transactions({
  escrow,
  network,
  authorizationTx,
}: {
  escrow: EscrowView;
  network: string;
  authorizationTx: string | null;
}) {
  const rows = [
    ...(authorizationTx
      ? [
          {
            key: "authorize",
            label: "Into escrow",
            status: "succeeded",
            amount: null,
            txHash: authorizationTx,
          },
        ]
      : []),
    ...escrow.transactions.map((tx, index) => ({
      key: `${tx.kind}-${index}`,
      label: TRANSACTION_LABELS[tx.kind],
      status: tx.status,
      amount: tx.amountUsdc,
      txHash: tx.txHash,
    })),
  ];
  return (
    <details className="mt-4 text-sm">
      <summary className="cursor-pointer font-medium text-indigo-700 dark:text-indigo-300">
        Transactions ({rows.length})
      </summary>
      <ul className="mt-2 space-y-2">
        {rows.map((row) => {
          const url = row.txHash ? explorerTxUrl(network, row.txHash) : null;
          return (
            <li key={row.key} className="min-w-0">
              <span className="font-medium">{row.label}</span>
              {row.amount !== null ? <> · {formatUsdc(row.amount)} USDC</> : null}
              {row.status !== "succeeded" ? <> · {row.status}</> : null}
              {row.txHash ? (
                <span className="block font-mono text-xs break-all text-slate-600 dark:text-slate-400">
                  {url ? (
                    <a href={url} className="underline" target="_blank" rel="noreferrer">
                      {row.txHash}
                    </a>
                  ) : (
                    row.txHash
                  )}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

function Item({
  term,
  testId,
  wide,
  children,
}: {
  term: string;
  testId?: string;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={`min-w-0 ${wide ? "sm:col-span-2" : ""}`}>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="mt-0.5 tabular-nums" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}
