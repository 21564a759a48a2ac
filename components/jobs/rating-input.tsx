"use client";

import { useState } from "react";
import { useHydrated } from "@/components/forms/use-hydrated";

/** Five radio buttons drawn as stars; arrow keys move between them like any radio group. */
export function RatingInput({
  name,
  legend,
  error,
  optional,
  idPrefix,
}: {
  name: string;
  legend: string;
  error?: string;
  optional?: boolean;
  idPrefix: string;
}) {
  const [value, setValue] = useState(0);
  const [hover, setHover] = useState(0);
  const shown = hover || value;
  // A star pressed before hydration would check the radio but never light the stars, and
  // pressing it again changes nothing: the stars wait for React (see useHydrated).
  const hydrated = useHydrated();
  return (
    <fieldset aria-describedby={error ? `${idPrefix}-error` : undefined}>
      <legend className="field-label">
        {legend}
        {optional ? (
          <span className="ml-1 font-normal text-slate-500 dark:text-slate-400">(optional)</span>
        ) : null}
      </legend>
      <div className="mt-1 flex items-center gap-1" onMouseLeave={() => setHover(0)}>
        {[1, 2, 3, 4, 5].map((star) => (
          <label
            key={star}
            className="cursor-pointer rounded-md p-0.5 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-1 has-[:focus-visible]:outline-indigo-500"
            onMouseEnter={() => setHover(star)}
          >
            <input
              type="radio"
              name={name}
              value={star}
              className="sr-only"
              checked={value === star}
              disabled={!hydrated}
              onChange={() => setValue(star)}
              aria-label={`${star} star${star === 1 ? "" : "s"}`}
            />
            <svg
              aria-hidden="true"
              viewBox="0 0 20 20"
              fill="currentColor"
              className={`size-8 transition-colors ${star <= shown ? "text-amber-400" : "text-slate-300 dark:text-slate-600"}`}
            >
              <path d="M10 1.7l2.5 5.2 5.7.8-4.1 4 1 5.6L10 14.6l-5.1 2.7 1-5.6-4.1-4 5.7-.8L10 1.7z" />
            </svg>
          </label>
        ))}
        <span className="ml-2 text-sm text-slate-600 dark:text-slate-400" aria-hidden="true">
          {value ? `${value} / 5` : ""}
        </span>
        {value && optional ? (
          <button type="button" className="btn btn-sm btn-ghost ml-1" onClick={() => setValue(0)}>
            Clear
          </button>
        ) : null}
      </div>
      {error ? (
        <p id={`${idPrefix}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
