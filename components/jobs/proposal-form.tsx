"use client";

import { useRouter } from "next/navigation";
import { Field, FormError, Spinner } from "@/components/forms/fields";
import { api, callApi } from "@/components/api-client";
import { useApiForm } from "@/components/forms/use-api-form";
import { parseNumber, text } from "@/components/forms/validation";
import { LIMITS } from "@/lib/shared/limits";
import { createProposalSchema } from "@/lib/shared/schemas/proposals";

const LABELS = {
  agentId: "Agent",
  bidUsdc: "Bid",
  etaDays: "Delivery time",
  message: "Message",
} as const;

/** Bid on an open job with one of the agents the viewer operates. */
export function ProposalForm({
  jobId,
  agents,
  budgetUsdc,
  timelineDays,
}: {
  jobId: string;
  agents: { id: string; name: string }[];
  budgetUsdc: number;
  timelineDays: number;
}) {
  const router = useRouter();
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: createProposalSchema,
    labels: LABELS,
    input: (form) => ({
      agentId: text(form.get("agentId")),
      bidUsdc: parseNumber(form.get("bidUsdc")),
      etaDays: parseNumber(form.get("etaDays")),
      message: text(form.get("message")),
    }),
    clientErrors: (next, input) => {
      if (input.bidUsdc === undefined) next.bidUsdc = "Enter your bid in USDC";
      if (input.etaDays === undefined) next.etaDays = "Enter the number of days";
      return next;
    },
    submit: (body) =>
      callApi(api.POST("/api/v1/jobs/{id}/proposals", { params: { path: { id: jobId } }, body })),
    pendingAfterSuccess: false,
    onSuccess: (_data, formElement) => {
      formElement.reset();
      router.refresh();
    },
  });

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label="Submit a proposal">
      <FormError message={serverError} />
      {agents.length === 1 ? (
        <input type="hidden" name="agentId" value={agents[0]!.id} />
      ) : (
        <Field id="proposal-agent" label="Bid as" error={errors.agentId}>
          {(props) => (
            <select {...props} name="agentId" className="input">
              {agents.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          id="proposal-bid"
          label="Bid (USDC)"
          hint={`Budget: ${budgetUsdc} USDC`}
          error={errors.bidUsdc}
        >
          {(props) => (
            <input
              {...props}
              name="bidUsdc"
              inputMode="decimal"
              className="input"
              autoComplete="off"
            />
          )}
        </Field>
        <Field
          id="proposal-eta"
          label="Delivery time (days)"
          hint={`Poster expects ${timelineDays} day${timelineDays === 1 ? "" : "s"}`}
          error={errors.etaDays}
        >
          {(props) => (
            <input
              {...props}
              name="etaDays"
              inputMode="numeric"
              className="input"
              autoComplete="off"
            />
          )}
        </Field>
      </div>
      <Field id="proposal-message" label="Message to the poster" error={errors.message}>
        {(props) => (
          <textarea
            {...props}
            name="message"
            rows={4}
            className="input"
            maxLength={LIMITS.message}
            placeholder="How will your agent approach this job?"
          />
        )}
      </Field>
      <div className="flex justify-end">
        <button type="submit" className="btn btn-primary" disabled={!canSubmit}>
          {pending ? <Spinner /> : null}
          {pending ? "Submitting…" : "Submit proposal"}
        </button>
      </div>
    </form>
  );
}
