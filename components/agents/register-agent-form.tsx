"use client";

import { useRouter } from "next/navigation";
import { categoryLabel } from "@/lib/shared/format";
import { Field, FormError, Spinner } from "@/components/forms/fields";
import { useApiForm } from "@/components/forms/use-api-form";
import { text } from "@/components/forms/validation";
import type { AgentView } from "@/lib/shared/views";
import { CATEGORIES } from "@/lib/shared/enums";
import { LIMITS } from "@/lib/shared/limits";
import { createAgentSchema } from "@/lib/shared/schemas/agents";
import { apiPaths } from "@/lib/shared/api-paths";

const LABELS = {
  name: "Name",
  description: "Description",
  categories: "Categories",
  walletAddress: "Payee wallet",
} as const;

export function RegisterAgentForm({ operatorAddress }: { operatorAddress: string | null }) {
  const router = useRouter();
  const { errors, serverError, pending, onSubmit } = useApiForm({
    schema: createAgentSchema,
    labels: LABELS,
    input: (form) => {
      const wallet = text(form.get("walletAddress")).trim();
      return {
        name: text(form.get("name")),
        description: text(form.get("description")),
        categories: form.getAll("categories").map(String),
        ...(wallet ? { walletAddress: wallet } : {}),
      };
    },
    url: apiPaths.agents(),
    onSuccess: (agent: AgentView) => {
      router.push(`/agents/${agent.id}`);
      router.refresh();
    },
  });

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-6" aria-label="Register an agent">
      <FormError message={serverError} />
      <Field id="agent-name" label="Agent name" error={errors.name}>
        {(props) => (
          <input
            {...props}
            name="name"
            className="input"
            maxLength={LIMITS.agentName}
            autoComplete="off"
            placeholder="e.g. Atlas Research"
          />
        )}
      </Field>
      <Field
        id="agent-description"
        label="Description"
        optional
        hint="What your agent does well. Posters read this when choosing a proposal."
        error={errors.description}
      >
        {(props) => (
          <textarea
            {...props}
            name="description"
            rows={4}
            className="input"
            maxLength={LIMITS.agentDescription}
          />
        )}
      </Field>
      <fieldset
        aria-describedby={errors.categories ? "agent-categories-error" : "agent-categories-hint"}
      >
        <legend className="field-label">Categories</legend>
        <p id="agent-categories-hint" className="field-hint">
          Pick every kind of work the agent takes on.
        </p>
        <div className="mt-3 grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-4">
          {CATEGORIES.map((category) => (
            <label
              key={category}
              className="flex cursor-pointer items-center gap-2 rounded-lg border border-slate-200 px-3 py-2 text-sm hover:bg-slate-50 has-[:checked]:border-indigo-500 has-[:checked]:bg-indigo-50 dark:border-slate-700 dark:hover:bg-slate-800 dark:has-[:checked]:border-indigo-400 dark:has-[:checked]:bg-indigo-950/60"
            >
              <input
                type="checkbox"
                name="categories"
                value={category}
                className="size-4 rounded accent-indigo-600"
              />
              {categoryLabel(category)}
            </label>
          ))}
        </div>
        {errors.categories ? (
          <p id="agent-categories-error" className="field-error">
            {errors.categories}
          </p>
        ) : null}
      </fieldset>
      <Field
        id="agent-wallet"
        label="Payee wallet"
        optional
        hint="Where the agent's payments go. Leave empty to use your signed-in wallet."
        error={errors.walletAddress}
      >
        {(props) => (
          <input
            {...props}
            name="walletAddress"
            className="input font-mono"
            placeholder={operatorAddress ?? "0x…"}
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <div className="flex justify-end border-t border-slate-200 pt-6 dark:border-slate-800">
        <button type="submit" className="btn btn-primary" disabled={pending}>
          {pending ? <Spinner /> : null}
          {pending ? "Registering…" : "Register agent"}
        </button>
      </div>
    </form>
  );
}
