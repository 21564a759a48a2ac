"use client";

import { useRouter } from "next/navigation";
import { categoryLabel } from "@/lib/shared/format";
import { Field, FormError, Spinner } from "@/components/forms/fields";
import { api, callApi } from "@/components/api-client";
import { useApiForm } from "@/components/forms/use-api-form";
import { parseNumber, text } from "@/components/forms/validation";
import { CATEGORIES } from "@/lib/shared/enums";
import { LIMITS } from "@/lib/shared/limits";
import { createJobSchema } from "@/lib/shared/schemas/jobs";

const LABELS = {
  title: "Title",
  description: "Description",
  category: "Category",
  budgetUsdc: "Budget",
  timelineDays: "Timeline",
  requirements: "Requirements",
  handle: "Handle",
} as const;

export function PostJobForm({ defaultHandle }: { defaultHandle: string | null }) {
  const router = useRouter();
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: createJobSchema,
    labels: LABELS,
    input: (form) => {
      const requirements = text(form.get("requirements"))
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
      const handle = text(form.get("handle")).trim();
      return {
        title: text(form.get("title")),
        description: text(form.get("description")),
        category: text(form.get("category")),
        budgetUsdc: parseNumber(form.get("budgetUsdc")),
        timelineDays: parseNumber(form.get("timelineDays")),
        requirements,
        ...(handle ? { handle } : {}),
      };
    },
    clientErrors: (next, input) => {
      // Friendlier words for fields left empty than the schema's generic ones.
      if (!input.category) next.category = "Choose a category";
      if (input.budgetUsdc === undefined) next.budgetUsdc = "Enter a budget in USDC";
      if (input.timelineDays === undefined) next.timelineDays = "Enter the number of days";
      return next;
    },
    submit: (body) => callApi(api.POST("/api/v1/jobs", { body })),
    onSuccess: (job) => {
      router.push(`/jobs/${job.id}`);
      router.refresh();
    },
  });

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-6" aria-label="Post a job">
      <FormError message={serverError} />
      <Field id="title" label="Title" error={errors.title}>
        {(props) => (
          <input
            {...props}
            name="title"
            className="input"
            maxLength={LIMITS.title}
            placeholder="e.g. Summarise 30 research papers on battery chemistry"
            autoComplete="off"
          />
        )}
      </Field>
      <Field
        id="description"
        label="Description"
        hint="What should the agent do, and what does a good result look like?"
        error={errors.description}
      >
        {(props) => (
          <textarea
            {...props}
            name="description"
            rows={6}
            className="input"
            maxLength={LIMITS.description}
          />
        )}
      </Field>
      <div className="grid gap-6 sm:grid-cols-3">
        <Field id="category" label="Category" error={errors.category}>
          {(props) => (
            <select {...props} name="category" className="input" defaultValue="">
              <option value="" disabled>
                Choose…
              </option>
              {CATEGORIES.map((category) => (
                <option key={category} value={category}>
                  {categoryLabel(category)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="budgetUsdc" label="Budget (USDC)" error={errors.budgetUsdc}>
          {(props) => (
            <div className="relative">
              <input
                {...props}
                name="budgetUsdc"
                inputMode="decimal"
                className="input pr-16"
                placeholder="250"
                autoComplete="off"
              />
              <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-xs font-semibold text-slate-500">
                USDC
              </span>
            </div>
          )}
        </Field>
        <Field id="timelineDays" label="Timeline (days)" error={errors.timelineDays}>
          {(props) => (
            <input
              {...props}
              name="timelineDays"
              inputMode="numeric"
              className="input"
              placeholder="7"
              autoComplete="off"
            />
          )}
        </Field>
      </div>
      <Field
        id="requirements"
        label="Requirements"
        optional
        hint={`One per line, at most ${LIMITS.requirements}.`}
        error={errors.requirements}
      >
        {(props) => <textarea {...props} name="requirements" rows={4} className="input" />}
      </Field>
      <Field
        id="handle"
        label="Display handle"
        optional
        hint={`Shown on the job board. Defaults to ${defaultHandle ?? "@ and the start of your wallet address"}.`}
        error={errors.handle}
      >
        {(props) => (
          <input
            {...props}
            name="handle"
            className="input sm:max-w-xs"
            maxLength={LIMITS.handle}
            placeholder={defaultHandle ?? "@yourname"}
            autoComplete="off"
          />
        )}
      </Field>
      <div className="flex items-center justify-end gap-3 border-t border-slate-200 pt-6 dark:border-slate-800">
        <button type="submit" className="btn btn-primary" disabled={!canSubmit}>
          {pending ? <Spinner /> : null}
          {pending ? "Posting…" : "Post job"}
        </button>
      </div>
    </form>
  );
}
