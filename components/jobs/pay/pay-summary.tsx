"use client";

import type { PaymentRequirements } from "@x402/core/types";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";
import { formatDeadline, formatWindow } from "@/components/jobs/escrow/when";
import type { EscrowTerms } from "./challenge-check";

/** What the 402 challenge asks for, shown before anything is signed. */
export function PaySummary({
  requirement,
  agentName,
  localChain,
  balance,
  escrow,
}: {
  requirement: PaymentRequirements;
  agentName: string;
  localChain: boolean;
  /** The connected wallet's USDC (atomic); undefined while loading, absent with no wallet. */
  balance: { value: bigint | undefined } | null;
  /** Paying protected: the challenge's escrow terms and the review window after delivery. */
  escrow: { terms: EscrowTerms; reviewSeconds: number } | null;
}) {
  return (
    <section aria-labelledby="pay-summary-title">
      <h3 id="pay-summary-title" className="sr-only">
        Payment request
      </h3>
      <dl
        className="divide-y divide-slate-200 rounded-xl border border-slate-200 text-sm dark:divide-slate-800 dark:border-slate-800"
        data-testid="payment-summary"
      >
        <Row term="Amount" className="text-lg font-bold tabular-nums" testId="payment-amount">
          {formatUsdc(atomicToUsdc(BigInt(requirement.amount)))} USDC
        </Row>
        <Row term={escrow ? "Held for" : "Pay to"} className="min-w-0">
          <span className="block font-medium">{agentName}</span>
          <span
            className="block font-mono text-xs break-all text-slate-600 dark:text-slate-400"
            data-testid="payment-payee"
          >
            {requirement.payTo}
          </span>
        </Row>
        <Row term="Network">
          {localChain ? "Local test chain" : "Base"}{" "}
          <span className="text-xs text-slate-500">({requirement.network})</span>
        </Row>
        {escrow ? (
          <>
            <Row term="Escrow contract" className="min-w-0">
              <span
                className="block font-mono text-xs break-all text-slate-600 dark:text-slate-400"
                data-testid="payment-escrow"
              >
                {escrow.terms.escrow}
              </span>
            </Row>
            <Row term="Agent delivers by" testId="payment-deliver-by">
              {formatDeadline(escrow.terms.deliverBy)}
            </Row>
            <Row term="Held at most until" testId="payment-held-until">
              {formatDeadline(escrow.terms.heldUntil)}
            </Row>
            {escrow.terms.maxFeeBps > 0 ? (
              <Row term="Platform fee">
                up to {escrow.terms.maxFeeBps / 100}% of what the agent receives
              </Row>
            ) : null}
          </>
        ) : null}
        {balance ? (
          <Row term="Your balance" className="tabular-nums">
            {balance.value !== undefined ? `${formatUsdc(atomicToUsdc(balance.value))} USDC` : "…"}
          </Row>
        ) : null}
      </dl>
      {escrow ? (
        <div
          className="mt-2 space-y-1 text-xs text-slate-500 dark:text-slate-400"
          data-testid="payment-protection"
        >
          <p>
            The money leaves your wallet into the Commerce Payments escrow contract. It is released
            to {agentName} when you complete the job, or automatically if you neither complete nor
            dispute within {formatWindow(escrow.reviewSeconds)} of the delivery.
          </p>
          <p>
            If the agent has not delivered by {formatDeadline(escrow.terms.deliverBy)}, you can
            cancel the job and get the money back (nothing can be delivered after it). Whatever
            happens to this site, you can reclaim it on chain yourself after{" "}
            {formatDeadline(escrow.terms.heldUntil)} if it was not released.
          </p>
          <p>
            You sign one USDC authorization (EIP-3009) for exactly these terms; the server moves it
            into escrow, then accepts the proposal. No gas is needed from you.
          </p>
        </div>
      ) : (
        <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
          You sign a one-time USDC transfer authorization (EIP-3009) for exactly this amount and
          payee. The server settles it on chain, then accepts the proposal. No gas is needed from
          you.
        </p>
      )}
    </section>
  );
}

function Row({
  term,
  className = "",
  testId,
  children,
}: {
  term: string;
  className?: string;
  testId?: string;
  children: React.ReactNode;
}) {
  return (
    <div className="flex items-baseline justify-between gap-4 px-4 py-3">
      <dt className="text-slate-600 dark:text-slate-400">{term}</dt>
      <dd className={`text-right ${className}`} data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}
