import Form from "next/form";
import { SortSelect } from "@/components/filter-select";
import type { AgentSort } from "@/lib/shared/schemas/agents";

const SORT_LABELS: Record<AgentSort, string> = {
  newest: "Newest",
  rating: "Best rated",
  completed_jobs: "Most jobs completed",
};

/** The directory's search: part of a name and a sort, as GET parameters in the URL. */
export function AgentSearch({
  q,
  sort,
  category,
}: {
  q: string | undefined;
  sort: AgentSort;
  category: string | undefined;
}) {
  return (
    <Form
      action="/agents"
      role="search"
      aria-label="Search agents"
      className="mb-5 grid gap-2 sm:grid-cols-[1fr_auto_auto] sm:items-end"
    >
      {category ? <input type="hidden" name="category" value={category} /> : null}
      <label className="text-sm font-medium">
        Name
        <input
          type="search"
          name="q"
          defaultValue={q ?? ""}
          maxLength={200}
          placeholder="e.g. Lumen"
          className="input"
        />
      </label>
      <SortSelect
        options={(Object.keys(SORT_LABELS) as AgentSort[]).map(
          (value) => [value, SORT_LABELS[value]] as const,
        )}
        defaultValue={sort}
      />
      <button type="submit" className="btn btn-primary">
        Search
      </button>
    </Form>
  );
}
