"use client";

import { useEffect, useRef } from "react";
import { Spinner } from "@/components/forms/fields";
import type { PayMode } from "./challenge-check";
import type { Run, StepId } from "./use-pay-run";

const STEPS: Record<PayMode, { id: StepId; title: string; running: string }[]> = {
  now: [
    {
      id: "sign",
      title: "Sign the USDC authorization",
      running: "Confirm the signature in your wallet…",
    },
    { id: "settle", title: "Settle on chain", running: "Transferring USDC to the agent…" },
    { id: "accept", title: "Accept the proposal", running: "Recording the acceptance…" },
  ],
  escrow: [
    {
      id: "sign",
      title: "Sign the escrow authorization",
      running: "Confirm the signature in your wallet…",
    },
    { id: "settle", title: "Hold in escrow", running: "Moving USDC into the escrow contract…" },
    { id: "accept", title: "Accept the proposal", running: "Recording the acceptance…" },
  ],
};
const ORDER: StepId[] = ["sign", "settle", "accept"];

type StepState = "upcoming" | "running" | "done" | "failed";

function stepState(run: Run, step: StepId): StepState {
  if (run.phase === "done") return "done";
  if (run.phase === "review") return "upcoming";
  const current = ORDER.indexOf(run.step);
  const index = ORDER.indexOf(step);
  if (index < current) return "done";
  if (index > current) return "upcoming";
  return run.phase === "failed" ? "failed" : "running";
}

/** The payment's progress once started: three steps, each with its error and Retry; then done. */
export function PaySteps({
  run,
  mode,
  agentName,
  onRetry,
}: {
  run: Run;
  mode: PayMode;
  agentName: string;
  onRetry(): void;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (run.phase === "done") headingRef.current?.focus();
  }, [run.phase]);

  if (run.phase === "review") return null;
  if (run.phase === "done") {
    return (
      <div className="rounded-xl bg-emerald-50 px-4 py-4 text-sm text-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-100">
        <h3
          ref={headingRef}
          tabIndex={-1}
          className="text-base font-semibold"
          data-testid="payment-done"
        >
          {mode === "escrow" ? "Paid into escrow and accepted" : "Paid and accepted"}
        </h3>
        <p className="mt-1">
          {agentName} is now working on this job.
          {mode === "escrow"
            ? " The money stays in escrow until you complete the job; the job page shows where it is."
            : ""}
        </p>
        <p className="mt-2 font-mono text-xs break-all">Transaction {run.txHash}</p>
      </div>
    );
  }
  return (
    <ol className="space-y-3" aria-label="Payment progress">
      {STEPS[mode].map((step, index) => {
        const failedHere = run.phase === "failed" && run.step === step.id;
        return (
          <StepRow
            key={step.id}
            index={index}
            title={step.title}
            running={step.running}
            state={stepState(run, step.id)}
            error={failedHere ? run.message : undefined}
            onRetry={failedHere && !run.conflict ? onRetry : undefined}
          />
        );
      })}
    </ol>
  );
}

const ICONS: Record<StepState, (index: number) => React.ReactNode> = {
  upcoming: (index) => (
    <span className="grid size-7 place-items-center rounded-full border-2 border-slate-300 text-xs font-bold text-slate-500 dark:border-slate-700">
      {index + 1}
    </span>
  ),
  running: () => (
    <span className="grid size-7 place-items-center rounded-full bg-indigo-100 text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300">
      <Spinner />
    </span>
  ),
  done: () => (
    <span className="grid size-7 place-items-center rounded-full bg-emerald-600 text-white">
      <svg viewBox="0 0 20 20" fill="currentColor" className="size-4">
        <path
          fillRule="evenodd"
          d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.6l7.3-7.3a1 1 0 0 1 1.4 0Z"
          clipRule="evenodd"
        />
      </svg>
    </span>
  ),
  failed: () => (
    <span className="grid size-7 place-items-center rounded-full bg-red-600 text-sm font-bold text-white">
      !
    </span>
  ),
};

const STATE_TEXT: Record<StepState, string> = {
  upcoming: "not started",
  running: "in progress",
  done: "done",
  failed: "failed",
};

function StepRow({
  index,
  title,
  running,
  state,
  error,
  onRetry,
}: {
  index: number;
  title: string;
  running: string;
  state: StepState;
  error?: string;
  onRetry?: () => void;
}) {
  return (
    <li className="flex gap-3" data-testid={`pay-step-${index + 1}`} data-state={state}>
      <span aria-hidden="true" className="shrink-0">
        {ICONS[state](index)}
      </span>
      <div className="min-w-0 flex-1 pt-0.5">
        <p
          className={`text-sm font-semibold ${state === "upcoming" ? "text-slate-500 dark:text-slate-400" : ""}`}
        >
          {index + 1}. {title}
          <span className="sr-only"> ({STATE_TEXT[state]})</span>
        </p>
        {state === "running" ? (
          <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
            {running}
          </p>
        ) : null}
        {error ? (
          <div className="mt-1 space-y-2">
            <p
              role="alert"
              className="text-sm font-medium text-red-700 dark:text-red-400"
              data-testid="payment-error"
            >
              {error}
            </p>
            {onRetry ? (
              <button type="button" className="btn btn-sm btn-secondary" onClick={onRetry}>
                Retry
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
    </li>
  );
}
