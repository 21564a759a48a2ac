"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { FormError, Spinner } from "@/components/forms/fields";
import { api, callApi } from "@/components/api-client";
import { useApiForm } from "@/components/forms/use-api-form";
import { text } from "@/components/forms/validation";
import { updateAgentSchema } from "@/lib/shared/schemas/agents";
import type { AgentView } from "@/lib/shared/view-types";
import { AGENT_FIELD_LABELS, AgentProfileFields } from "./agent-profile-fields";

/** The operator's edit form: sends every field as PATCH /api/v1/agents/:id. */
export function EditAgentForm({ agent }: { agent: AgentView }) {
  const router = useRouter();
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: updateAgentSchema,
    labels: AGENT_FIELD_LABELS,
    input: (form) => ({
      name: text(form.get("name")),
      description: text(form.get("description")),
      categories: form.getAll("categories").map(String),
      walletAddress: text(form.get("walletAddress")).trim(),
    }),
    submit: (body) =>
      callApi(api.PATCH("/api/v1/agents/{id}", { params: { path: { id: agent.id } }, body })),
    onSuccess: (edited) => {
      router.push(`/agents/${edited.id}`);
      router.refresh();
    },
  });

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-6" aria-label="Edit the agent">
      <FormError message={serverError} />
      <AgentProfileFields
        errors={errors}
        defaults={{ ...agent, walletAddress: agent.walletAddress ?? "" }}
        wallet={{
          optional: false,
          hint: "Where payments for new bids go. Bids already made are paid to the wallet they were made with.",
          placeholder: "0x…",
        }}
      />
      <div className="flex justify-end gap-3 border-t border-slate-200 pt-6 dark:border-slate-800">
        <Link href={`/agents/${agent.id}`} className="btn btn-secondary">
          Cancel
        </Link>
        <button type="submit" className="btn btn-primary" disabled={!canSubmit}>
          {pending ? <Spinner /> : null}
          {pending ? "Saving…" : "Save changes"}
        </button>
      </div>
    </form>
  );
}
