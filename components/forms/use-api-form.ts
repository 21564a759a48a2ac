import { type FormEvent, useState } from "react";
import type { z } from "zod";
import type { ApiResult } from "../api-client";
import { useHydrated } from "./use-hydrated";
import {
  type FieldErrors,
  fieldErrors,
  focusFirstError,
  humanize,
  serverFieldOf,
} from "./validation";

export interface ApiFormOptions<S extends z.ZodType, K extends string, I, T> {
  schema: S;
  labels: Record<K, string>;
  /** FormData → the raw input handed to `schema.safeParse`. */
  input: (form: FormData) => I;
  /** Sends the parsed input through the typed client (`callApi(api.POST(...))`). */
  submit: (input: z.output<S>) => Promise<ApiResult<T>>;
  onSuccess: (data: T, form: HTMLFormElement) => void;
  /** Adjusts the per-field messages when the schema rejects the input. */
  clientErrors?: (errors: FieldErrors<K>, input: I, error: z.ZodError) => FieldErrors<K>;
  /** Move focus to the first invalid field (default true). */
  focusErrors?: boolean;
  /** Show a server message that names a field next to that field too (default true). */
  serverFieldErrors?: boolean;
  /** Leave the submit button pending after success, e.g. while navigating away (default true). */
  pendingAfterSuccess?: boolean;
}

/** Owns a form's errors / serverError / pending state and the validate → post → report flow. */
export function useApiForm<S extends z.ZodType, K extends string, I, T>({
  schema,
  labels,
  input,
  submit,
  onSuccess,
  clientErrors,
  focusErrors = true,
  serverFieldErrors = true,
  pendingAfterSuccess = true,
}: ApiFormOptions<S, K, I, T>) {
  const [errors, setErrors] = useState<FieldErrors<K>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const hydrated = useHydrated();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const raw = input(new FormData(formElement));
    const parsed = schema.safeParse(raw);
    setServerError(null);
    if (!parsed.success) {
      const found = fieldErrors(parsed.error, labels);
      const next = clientErrors ? clientErrors(found, raw, parsed.error) : found;
      setErrors(next);
      if (focusErrors) focusFirstError(formElement, next);
      return;
    }
    setErrors({});
    setPending(true);
    const result = await submit(parsed.data);
    if (result.ok) {
      if (!pendingAfterSuccess) setPending(false);
      onSuccess(result.data, formElement);
      return;
    }
    setPending(false);
    const message = humanize(result.error, labels);
    if (serverFieldErrors) {
      const field = serverFieldOf(result.error, labels);
      if (field) setErrors({ [field]: message } as FieldErrors<K>);
    }
    setServerError(message);
  }

  /** The submit button's state: not before hydration (see useHydrated), not while sending. */
  const canSubmit = hydrated && !pending;
  return { errors, serverError, pending, canSubmit, onSubmit };
}
