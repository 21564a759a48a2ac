"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field, FormError, Spinner } from "@/components/forms/fields";
import { api, callApi } from "@/components/api-client";
import { useApiForm } from "@/components/forms/use-api-form";
import { text } from "@/components/forms/validation";
import { TOKEN_SCOPES } from "@/lib/shared/enums";
import { LIMITS } from "@/lib/shared/limits";
import { createTokenSchema } from "@/lib/shared/schemas/tokens";
import type { CreatedAccessTokenView } from "@/lib/shared/view-types";
import { EXPIRY_CHOICES, SCOPE_DESCRIPTIONS } from "./scopes";

const LABELS = { name: "Name", scopes: "Scopes", expiresInDays: "Expiry" } as const;

/** Creates a token and shows its secret this once; the list above refreshes. */
export function CreateTokenForm() {
  const router = useRouter();
  const [created, setCreated] = useState<CreatedAccessTokenView | null>(null);
  const { errors, serverError, pending, canSubmit, onSubmit } = useApiForm({
    schema: createTokenSchema,
    labels: LABELS,
    input: (form) => ({
      name: text(form.get("name")),
      scopes: form.getAll("scopes").map(String),
      expiresInDays: Number(text(form.get("expiresInDays"))),
    }),
    submit: (body) => callApi(api.POST("/api/v1/tokens", { body })),
    pendingAfterSuccess: false,
    onSuccess: (token: CreatedAccessTokenView, form) => {
      setCreated(token);
      form.reset();
      router.refresh();
    },
  });

  return (
    <div className="space-y-6">
      {created ? <NewTokenSecret token={created} onDone={() => setCreated(null)} /> : null}
      <form
        onSubmit={onSubmit}
        noValidate
        className="space-y-6"
        aria-label="Create an access token"
      >
        <FormError message={serverError} />
        <Field
          id="token-name"
          label="Name"
          hint="What uses it, e.g. “research bot on my laptop”."
          error={errors.name}
        >
          {(props) => (
            <input
              {...props}
              name="name"
              className="input"
              maxLength={LIMITS.tokenName}
              autoComplete="off"
            />
          )}
        </Field>
        <fieldset aria-describedby={errors.scopes ? "token-scopes-error" : "token-scopes-hint"}>
          <legend className="field-label">Scopes</legend>
          <p id="token-scopes-hint" className="field-hint">
            Give a program only what it needs.
          </p>
          <div className="mt-3 grid gap-2 sm:grid-cols-2">
            {TOKEN_SCOPES.map((scope) => (
              <label
                key={scope}
                className="flex cursor-pointer items-start gap-2 rounded-lg border border-slate-200 px-3 py-2 text-sm hover:bg-slate-50 has-[:checked]:border-indigo-500 has-[:checked]:bg-indigo-50 dark:border-slate-700 dark:hover:bg-slate-800 dark:has-[:checked]:border-indigo-400 dark:has-[:checked]:bg-indigo-950/60"
              >
                <input
                  type="checkbox"
                  name="scopes"
                  value={scope}
                  className="mt-0.5 size-4 rounded accent-indigo-600"
                />
                <span>
                  <span className="font-mono font-semibold">{scope}</span>
                  <span className="block text-slate-600 dark:text-slate-400">
                    {SCOPE_DESCRIPTIONS[scope]}
                  </span>
                </span>
              </label>
            ))}
          </div>
          {errors.scopes ? (
            <p id="token-scopes-error" className="field-error">
              {errors.scopes}
            </p>
          ) : null}
        </fieldset>
        <Field id="token-expiry" label="Expires after" error={errors.expiresInDays}>
          {(props) => (
            <select
              {...props}
              name="expiresInDays"
              className="input"
              defaultValue={LIMITS.tokenDefaultDays}
            >
              {EXPIRY_CHOICES.map((days) => (
                <option key={days} value={days}>
                  {days} days
                </option>
              ))}
            </select>
          )}
        </Field>
        <div className="flex justify-end border-t border-slate-200 pt-6 dark:border-slate-800">
          <button type="submit" className="btn btn-primary" disabled={!canSubmit}>
            {pending ? <Spinner /> : null}
            {pending ? "Creating…" : "Create token"}
          </button>
        </div>
      </form>
    </div>
  );
}

function NewTokenSecret({ token, onDone }: { token: CreatedAccessTokenView; onDone(): void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div
      role="status"
      className="space-y-3 rounded-lg border border-emerald-300 bg-emerald-50 p-4 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950/60 dark:text-emerald-100"
    >
      <p className="font-semibold">
        Token “{token.name}” created. Copy it now: it is not shown again.
      </p>
      <code
        className="block overflow-x-auto rounded bg-white px-3 py-2 font-mono text-xs break-all text-slate-900 dark:bg-slate-900 dark:text-slate-100"
        data-testid="new-token-secret"
      >
        {token.token}
      </code>
      <div className="flex gap-2">
        <button
          type="button"
          className="btn btn-sm btn-secondary"
          onClick={() =>
            navigator.clipboard.writeText(token.token).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" className="btn btn-sm btn-ghost" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
