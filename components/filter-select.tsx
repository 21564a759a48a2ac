"use client";

import type { ReactNode } from "react";
import { CATEGORIES } from "@/lib/shared/enums";
import { categoryLabel } from "@/lib/shared/format";

/** A <select> inside a GET form that submits the form when it changes. */
export function FilterSelect({
  id,
  name,
  label,
  defaultValue,
  children,
}: {
  id: string;
  name: string;
  label: string;
  defaultValue: string;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <select
        id={id}
        name={name}
        defaultValue={defaultValue}
        className="input mt-0 min-w-48 py-2 pr-8"
        onChange={(event) => event.currentTarget.form?.requestSubmit()}
      >
        {children}
      </select>
    </div>
  );
}

/** The category filter of the job board and the agent directory. */
export function CategoryFilter({ id, defaultValue }: { id: string; defaultValue: string }) {
  return (
    <FilterSelect id={id} name="category" label="Category" defaultValue={defaultValue}>
      <option value="">All categories</option>
      {CATEGORIES.map((category) => (
        <option key={category} value={category}>
          {categoryLabel(category)}
        </option>
      ))}
    </FilterSelect>
  );
}

/** A sort <select> inside a GET search form (submitted with the form's button). */
export function SortSelect<T extends string>({
  options,
  defaultValue,
}: {
  options: readonly (readonly [T, string])[];
  defaultValue: T;
}) {
  return (
    <label className="text-sm font-medium">
      Sort
      <select name="sort" defaultValue={defaultValue} className="input py-2 pr-8">
        {options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}
