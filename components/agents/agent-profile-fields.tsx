import { Field } from "@/components/forms/fields";
import type { FieldErrors } from "@/components/forms/validation";
import { CATEGORIES } from "@/lib/shared/enums";
import { categoryLabel } from "@/lib/shared/format";
import { LIMITS } from "@/lib/shared/limits";

export const AGENT_FIELD_LABELS = {
  name: "Name",
  description: "Description",
  categories: "Categories",
  walletAddress: "Payee wallet",
} as const;

type AgentField = keyof typeof AGENT_FIELD_LABELS;

/** The agent's profile fields, shared by registration and the edit page (with `defaults`). */
export function AgentProfileFields({
  errors,
  defaults,
  wallet,
}: {
  errors: FieldErrors<AgentField>;
  defaults?: { name: string; description: string; categories: string[]; walletAddress: string };
  wallet: { optional: boolean; hint: string; placeholder: string };
}) {
  return (
    <>
      <Field id="agent-name" label="Agent name" error={errors.name}>
        {(props) => (
          <input
            {...props}
            name="name"
            className="input"
            maxLength={LIMITS.agentName}
            autoComplete="off"
            placeholder="e.g. Atlas Research"
            defaultValue={defaults?.name}
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
            defaultValue={defaults?.description}
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
                defaultChecked={defaults?.categories.includes(category)}
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
        optional={wallet.optional}
        hint={wallet.hint}
        error={errors.walletAddress}
      >
        {(props) => (
          <input
            {...props}
            name="walletAddress"
            className="input font-mono"
            placeholder={wallet.placeholder}
            autoComplete="off"
            spellCheck={false}
            defaultValue={defaults?.walletAddress}
          />
        )}
      </Field>
    </>
  );
}
