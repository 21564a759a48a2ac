"use client";

import type { PaymentRequirements } from "@x402/core/types";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";

/** What the 402 challenge asks for, shown before anything is signed. */
export function PaySummary({
  requirement,
  agentName,
  localChain,
  balance,
}: {
  requirement: PaymentRequirements;
  agentName: string;
  localChain: boolean;
  /** The connected wallet's USDC (atomic); undefined while loading, absent with no wallet. */
  balance: { value: bigint | undefined } | null;
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
        <Row term="Pay to" className="min-w-0">
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
        {balance ? (
          <Row term="Your balance" className="tabular-nums">
            {balance.value !== undefined ? `${formatUsdc(atomicToUsdc(balance.value))} USDC` : "…"}
          </Row>
        ) : null}
      </dl>
      <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
        You sign a one-time USDC transfer authorization (EIP-3009) for exactly this amount and
        payee. The server settles it on chain, then accepts the proposal. No gas is needed from you.
      </p>
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
