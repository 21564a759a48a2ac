import type { z } from "zod";
import { capitalize } from "../api-client";

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

/**
 * zod issues → one message per top-level field, with API field names replaced by the form's
 * labels ("budgetUsdc must be greater than 0" → "Budget must be greater than 0").
 */
export function fieldErrors<K extends string>(
  error: z.ZodError,
  labels: Record<K, string>,
): FieldErrors<K> {
  const result: FieldErrors<K> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "") as K;
    if (!(key in labels) || result[key]) continue;
    result[key] = humanize(issue.message, labels);
  }
  return result;
}

export function humanize<K extends string>(message: string, labels: Record<K, string>): string {
  let text = message;
  for (const [key, label] of Object.entries(labels) as [K, string][]) {
    text = text.replace(new RegExp(`\\b${key}\\b`, "g"), label.toLowerCase());
  }
  return capitalize(text);
}

/** "" → undefined, "12.5" → 12.5, "abc" → NaN (so the schema reports it). */
export function parseNumber(value: FormDataEntryValue | null): number | undefined {
  const text = typeof value === "string" ? value.trim().replace(/,/g, "") : "";
  if (text === "") return undefined;
  return Number(text);
}

export function text(value: FormDataEntryValue | null): string {
  return typeof value === "string" ? value : "";
}

/** A server message that names one of the form's fields ("title must not be empty") → that field. */
export function serverFieldOf<K extends string>(
  message: string,
  labels: Record<K, string>,
): K | undefined {
  const first = message.match(/^[A-Za-z]+/)?.[0];
  return first && first in labels ? (first as K) : undefined;
}

/** Moves focus to the first field with an error, so keyboard and screen-reader users land on it. */
export function focusFirstError(form: HTMLFormElement, errors: Record<string, string | undefined>) {
  const first = Object.keys(errors).find((key) => errors[key]);
  if (!first) return;
  const element = form.querySelector<HTMLElement>(`[name="${first}"]`);
  element?.focus();
}
