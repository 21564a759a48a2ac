"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { api, callApi } from "@/components/api-client";
import { Field, FormError, Spinner } from "@/components/forms/fields";
import { useApiForm } from "@/components/forms/use-api-form";
import { parseNumber, text } from "@/components/forms/validation";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { disputeSchema, resolveDisputeSchema } from "@/lib/shared/schemas/jobs";

// What the parties and the platform's admins do with a held protected payment on the job
// page: the poster cancels an undelivered job past its deadline, either party opens a
// dispute, an admin resolves it. Each posts to its API endpoint and refreshes the page.

const REASON_MAX = 2000;

/** Poster, from the delivery deadline on: the job ends and the escrow returns the money. */
export function CancelJobButton({ jobId }: { jobId: string }) {
  return (
    <ConfirmButton
      label="Cancel and get the money back"
      confirmLabel="Yes, cancel the job"
      question="The job ends and the USDC held in escrow goes back to your wallet."
      groupLabel="Cancel the job"
      action={() =>
        callApi(api.POST("/api/v1/jobs/{id}/cancel", { params: { path: { id: jobId } } }))
      }
    />
  );
}

const DISPUTE_LABELS = { reason: "Reason" } as const;

/** Poster or assigned agent, while held: freezes the payment until an admin decides. */
export function DisputeForm({ jobId }: { jobId: string }) {
  const router = useRouter();
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: disputeSchema,
    labels: DISPUTE_LABELS,
    input: (form) => ({ reason: text(form.get("reason")) }),
    submit: (body) =>
      callApi(api.POST("/api/v1/jobs/{id}/dispute", { params: { path: { id: jobId } }, body })),
    onSuccess: () => router.refresh(),
  });
  return (
    <details className="group">
      <summary className="btn btn-sm btn-secondary cursor-pointer list-none">
        Open a dispute
      </summary>
      <form onSubmit={onSubmit} noValidate className="mt-3 space-y-3" aria-label="Open a dispute">
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Nothing is released or returned while a dispute is open: a platform admin reads both sides
          and decides to pay the agent, refund the poster, or split.
        </p>
        <FormError message={serverError} />
        <Field id={`dispute-reason-${jobId}`} label="What went wrong?" error={errors.reason}>
          {(props) => (
            <textarea
              {...props}
              name="reason"
              rows={3}
              className="input"
              maxLength={REASON_MAX}
              required
            />
          )}
        </Field>
        <div className="flex justify-end">
          <button type="submit" className="btn btn-sm btn-danger" disabled={!canSubmit}>
            {pending ? <Spinner /> : null}
            {pending ? "Opening…" : "Open the dispute"}
          </button>
        </div>
      </form>
    </details>
  );
}

const RESOLVE_LABELS = {
  outcome: "Decision",
  agentUsdc: "Agent's share",
  reason: "Reason",
} as const;

const OUTCOMES = [
  { value: "release", label: "Release to the agent" },
  { value: "refund", label: "Refund the poster" },
  { value: "split", label: "Split" },
] as const;

/** An admin's decision on an open dispute: release, refund, or split with the agent's share. */
export function ResolveDisputeForm({ jobId, heldUsdc }: { jobId: string; heldUsdc: number }) {
  const router = useRouter();
  const [outcome, setOutcome] = useState<(typeof OUTCOMES)[number]["value"]>("release");
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: resolveDisputeSchema,
    labels: RESOLVE_LABELS,
    input: (form) => ({
      outcome: text(form.get("outcome")),
      ...(form.get("outcome") === "split" ? { agentUsdc: parseNumber(form.get("agentUsdc")) } : {}),
      reason: text(form.get("reason")),
    }),
    clientErrors: (found, input) =>
      input.outcome === "split" && input.agentUsdc === undefined
        ? { ...found, agentUsdc: "Enter the agent's share in USDC" }
        : found,
    submit: (body) =>
      callApi(
        api.POST("/api/v1/jobs/{id}/dispute/resolve", { params: { path: { id: jobId } }, body }),
      ),
    onSuccess: () => router.refresh(),
  });
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-3" aria-label="Resolve the dispute">
      <FormError message={serverError} />
      <fieldset>
        <legend className="field-label">Decision</legend>
        <div className="flex flex-wrap gap-x-5 gap-y-2">
          {OUTCOMES.map((choice) => (
            <label key={choice.value} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="outcome"
                value={choice.value}
                checked={outcome === choice.value}
                onChange={() => setOutcome(choice.value)}
                className="size-4 accent-indigo-600"
              />
              {choice.label}
            </label>
          ))}
        </div>
      </fieldset>
      {outcome === "split" ? (
        <Field
          id={`resolve-agent-usdc-${jobId}`}
          label="Agent's share (USDC)"
          hint={`More than 0 and less than the ${heldUsdc} USDC held; the rest goes back to the poster.`}
          error={errors.agentUsdc}
        >
          {(props) => (
            <input
              {...props}
              name="agentUsdc"
              type="number"
              inputMode="decimal"
              min="0"
              step="0.000001"
              className="input"
            />
          )}
        </Field>
      ) : null}
      <Field id={`resolve-reason-${jobId}`} label="Reason" error={errors.reason}>
        {(props) => (
          <textarea
            {...props}
            name="reason"
            rows={3}
            className="input"
            maxLength={REASON_MAX}
            required
          />
        )}
      </Field>
      <div className="flex justify-end">
        <button type="submit" className="btn btn-sm btn-primary" disabled={!canSubmit}>
          {pending ? <Spinner /> : null}
          {pending ? "Resolving…" : "Resolve the dispute"}
        </button>
      </div>
    </form>
  );
}
