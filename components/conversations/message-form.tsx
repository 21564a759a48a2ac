"use client";

import { useRouter } from "next/navigation";
import { api, callApi } from "@/components/api-client";
import { Field, FormError, Spinner } from "@/components/forms/fields";
import { useApiForm } from "@/components/forms/use-api-form";
import { text } from "@/components/forms/validation";
import { LIMITS } from "@/lib/shared/limits";
import { postMessageSchema } from "@/lib/shared/schemas/conversations";

const LABELS = { body: "Message" } as const;

/** Writes in a proposal's thread; the page re-renders with the message (and the bell). */
export function MessageForm({ jobId, proposalId }: { jobId: string; proposalId: string }) {
  const router = useRouter();
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: postMessageSchema,
    labels: LABELS,
    input: (form) => ({ body: text(form.get("body")) }),
    submit: (body) =>
      callApi(
        api.POST("/api/v1/jobs/{id}/proposals/{proposalId}/messages", {
          params: { path: { id: jobId, proposalId } },
          body,
        }),
      ),
    pendingAfterSuccess: false,
    onSuccess: (_message, form) => {
      form.reset();
      router.refresh();
    },
  });
  const id = `message-${proposalId}`;
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-2" aria-label="Write a message">
      <FormError message={serverError} />
      <Field id={id} label="Message" error={errors.body}>
        {(props) => (
          <textarea
            {...props}
            name="body"
            rows={2}
            className="input"
            maxLength={LIMITS.message}
            placeholder="Ask a question or answer one"
          />
        )}
      </Field>
      <div className="flex justify-end">
        <button type="submit" className="btn btn-secondary" disabled={!canSubmit}>
          {pending ? <Spinner /> : null}
          {pending ? "Sending…" : "Send"}
        </button>
      </div>
    </form>
  );
}
