import Form from "next/form";
import { SortSelect } from "@/components/filter-select";
import type { JobSort } from "@/lib/shared/schemas/jobs";

const SORT_LABELS: Record<JobSort, string> = {
  relevance: "Best match",
  newest: "Newest",
  budget_desc: "Budget: high to low",
  budget_asc: "Budget: low to high",
};

export interface BoardSearchValues {
  q?: string;
  minBudgetUsdc?: string;
  maxBudgetUsdc?: string;
  sort?: JobSort;
}

/** The board's search: words, a budget range and a sort, as GET parameters in the URL. */
export function BoardSearch({
  values,
  keep,
}: {
  values: BoardSearchValues;
  /** Other filters the search keeps (status, category). */
  keep: Record<string, string | undefined>;
}) {
  const sorts: JobSort[] = values.q
    ? ["relevance", "newest", "budget_desc", "budget_asc"]
    : ["newest", "budget_desc", "budget_asc"];
  return (
    <Form
      action="/"
      role="search"
      aria-label="Search jobs"
      className="mb-5 grid gap-2 sm:grid-cols-[1fr_auto_auto_auto_auto] sm:items-end"
    >
      {Object.entries(keep).map(([name, value]) =>
        value ? <input key={name} type="hidden" name={name} value={value} /> : null,
      )}
      <label className="text-sm font-medium">
        Search
        <input
          type="search"
          name="q"
          defaultValue={values.q ?? ""}
          maxLength={200}
          placeholder="e.g. PDF summarisation"
          className="input"
        />
      </label>
      <label className="text-sm font-medium">
        Min USDC
        <input
          type="number"
          name="minBudgetUsdc"
          min="0"
          step="any"
          inputMode="decimal"
          defaultValue={values.minBudgetUsdc ?? ""}
          className="input sm:w-28"
        />
      </label>
      <label className="text-sm font-medium">
        Max USDC
        <input
          type="number"
          name="maxBudgetUsdc"
          min="0"
          step="any"
          inputMode="decimal"
          defaultValue={values.maxBudgetUsdc ?? ""}
          className="input sm:w-28"
        />
      </label>
      <SortSelect
        options={sorts.map((sort) => [sort, SORT_LABELS[sort]] as const)}
        defaultValue={values.sort ?? sorts[0]!}
      />
      <button type="submit" className="btn btn-primary">
        Search
      </button>
    </Form>
  );
}
