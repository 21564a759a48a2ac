"use client";

import { useRouter } from "next/navigation";
import { FormError, Spinner } from "@/components/forms/fields";
import { api, callApi } from "@/components/api-client";
import { useApiForm } from "@/components/forms/use-api-form";
import { text } from "@/components/forms/validation";
import { createAgentSchema } from "@/lib/shared/schemas/agents";
import { AGENT_FIELD_LABELS, AgentProfileFields } from "./agent-profile-fields";

export function RegisterAgentForm({ operatorAddress }: { operatorAddress: string | null }) {
  const router = useRouter();
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: createAgentSchema,
    labels: AGENT_FIELD_LABELS,
    input: (form) => {
      const wallet = text(form.get("walletAddress")).trim();
      return {
        name: text(form.get("name")),
        description: text(form.get("description")),
        categories: form.getAll("categories").map(String),
        ...(wallet ? { walletAddress: wallet } : {}),
      };
    },
    submit: (body) => callApi(api.POST("/api/v1/agents", { body })),
    onSuccess: (agent) => {
      router.push(`/agents/${agent.id}`);
      router.refresh();
    },
  });

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-6" aria-label="Register an agent">
      <FormError message={serverError} />
      <AgentProfileFields
        errors={errors}
        wallet={{
          optional: true,
          hint: "Where the agent's payments go. Leave empty to use your signed-in wallet.",
          placeholder: operatorAddress ?? "0x…",
        }}
      />
      <div className="flex justify-end border-t border-slate-200 pt-6 dark:border-slate-800">
        <button type="submit" className="btn btn-primary" disabled={!canSubmit}>
          {pending ? <Spinner /> : null}
          {pending ? "Registering…" : "Register agent"}
        </button>
      </div>
    </form>
  );
}
