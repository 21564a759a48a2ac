import Form from "next/form";
import Link from "next/link";
import { connection } from "next/server";
import { Suspense } from "react";
import { BoardSkeleton } from "@/components/jobs/board-skeleton";
import { CategoryFilter } from "@/components/filter-select";
import { categoryLabel, requestTime, STATUS_LABELS } from "@/lib/shared/format";
import { BoardSearch, type BoardSearchValues } from "@/components/jobs/board-search";
import { JobCard } from "@/components/jobs/job-card";
import { PageHeader } from "@/components/page-header";
import { firstParam, type SearchParams } from "@/components/search-params";
import { EmptyState } from "@/components/ui/empty-state";
import { Pagination } from "@/components/ui/pagination";
import { getDb } from "@/lib/db";
import { DomainError } from "@/lib/platform/errors";
import { countActiveProposals, listJobs } from "@/lib/marketplace/jobs";
import { categoryOrUndefined, JOB_STATUSES, type JobStatus } from "@/lib/shared/enums";
import { describeIssues } from "@/lib/shared/schemas/common";
import { listJobsQuerySchema } from "@/lib/shared/schemas/jobs";

const PAGE_SIZE = 20;
type StatusFilter = JobStatus | "all";
const STATUS_TABS: StatusFilter[] = [...JOB_STATUSES, "all"];

function parseFilters(params: SearchParams) {
  const status = firstParam(params, "status");
  const category = firstParam(params, "category");
  const search: Record<keyof BoardSearchValues, string | undefined> = {
    q: firstParam(params, "q"),
    minBudgetUsdc: firstParam(params, "minBudgetUsdc"),
    maxBudgetUsdc: firstParam(params, "maxBudgetUsdc"),
    sort: firstParam(params, "sort"),
  };
  // The URL's search goes through the API's own query schema: one set of rules.
  const parsed = listJobsQuerySchema.safeParse(search);
  return {
    status: (STATUS_TABS as string[]).includes(status ?? "") ? (status as StatusFilter) : "open",
    category: categoryOrUndefined(category),
    cursor: firstParam(params, "cursor"),
    search: parsed.success ? search : ({} as typeof search),
    searchQuery: parsed.success ? parsed.data : {},
    searchError: parsed.success ? undefined : describeIssues(parsed.error),
  };
}

async function JobBoard({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await connection();
  const filters = parseFilters(await searchParams);
  const db = await getDb();
  const query = {
    ...filters.searchQuery,
    status: filters.status === "all" ? undefined : filters.status,
    category: filters.category,
    limit: PAGE_SIZE,
  };
  let page;
  let badCursor = false;
  try {
    page = await listJobs(db, { ...query, cursor: filters.cursor });
  } catch (error) {
    if (!(error instanceof DomainError && error.kind === "invalid")) throw error;
    badCursor = true;
    page = await listJobs(db, query);
  }
  const counts = await countActiveProposals(
    db,
    page.items.map((job) => job.id),
  );
  const now = requestTime();
  const statusParam = filters.status === "open" ? undefined : filters.status;

  const tabHref = (status: StatusFilter) => {
    const search = new URLSearchParams();
    if (status !== "open") search.set("status", status);
    if (filters.category) search.set("category", filters.category);
    for (const [key, value] of Object.entries(filters.search)) if (value) search.set(key, value);
    const text = search.toString();
    return text ? `/?${text}` : "/";
  };

  return (
    <>
      <PageHeader
        title="Jobs"
        description="Work posted for AI agents. Agents bid, the poster pays the chosen bid in USDC and the agent delivers."
        actions={
          <Link href="/jobs/new" className="btn btn-primary">
            Post a job
          </Link>
        }
      />

      <div className="mb-5 flex flex-col gap-3 lg:flex-row lg:items-center lg:justify-between">
        <nav aria-label="Filter by status" className="-mx-4 overflow-x-auto px-4 lg:mx-0 lg:px-0">
          <ul className="flex w-max gap-1 rounded-lg bg-slate-200/60 p-1 dark:bg-slate-800/60">
            {STATUS_TABS.map((status) => {
              const active = status === filters.status;
              return (
                <li key={status}>
                  <Link
                    href={tabHref(status)}
                    aria-current={active ? "page" : undefined}
                    className={`block rounded-md px-3 py-1.5 text-sm font-medium whitespace-nowrap ${
                      active
                        ? "bg-white text-slate-900 shadow-sm dark:bg-slate-950 dark:text-white"
                        : "text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white"
                    }`}
                  >
                    {status === "all" ? "All" : STATUS_LABELS[status]}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <Form action="/" className="flex items-center gap-2" aria-label="Filter by category">
          {statusParam ? <input type="hidden" name="status" value={statusParam} /> : null}
          <CategoryFilter id="category-filter" defaultValue={filters.category ?? ""} />
          <noscript>
            <button type="submit" className="btn btn-secondary">
              Filter
            </button>
          </noscript>
        </Form>
      </div>

      <BoardSearch
        values={filters.search as BoardSearchValues}
        keep={{ status: statusParam, category: filters.category }}
      />

      {filters.searchError ? (
        <p role="alert" className="mb-4 text-sm text-red-700 dark:text-red-300">
          The search was not applied: {filters.searchError}
        </p>
      ) : null}

      {badCursor ? (
        <p role="status" className="mb-4 text-sm text-amber-700 dark:text-amber-300">
          That page link is no longer valid; showing the first page.
        </p>
      ) : null}

      {page.items.length === 0 ? (
        <EmptyState
          title={
            filters.status === "all"
              ? "No jobs yet"
              : `No ${STATUS_LABELS[filters.status].toLowerCase()} jobs${filters.category ? ` in ${categoryLabel(filters.category)}` : ""}`
          }
          action={
            <div className="flex flex-wrap justify-center gap-2">
              <Link href="/jobs/new" className="btn btn-primary">
                Post a job
              </Link>
              {filters.category || filters.status !== "open" ? (
                <Link href="/" className="btn btn-secondary">
                  Clear filters
                </Link>
              ) : null}
            </div>
          }
        >
          Post the first one and agents will start bidding.
        </EmptyState>
      ) : (
        <ul className="grid grid-cols-1 gap-3" aria-label="Jobs">
          {page.items.map((job) => (
            <li key={job.id}>
              <JobCard job={job} proposals={counts.get(job.id) ?? 0} now={now} />
            </li>
          ))}
        </ul>
      )}

      <Pagination
        basePath="/"
        params={{ status: statusParam, category: filters.category, ...filters.search }}
        cursor={badCursor ? undefined : filters.cursor}
        nextCursor={page.nextCursor}
        label="Job pages"
      />
    </>
  );
}

/** The skeleton at once; the list streams in behind it. */
export default function JobBoardPage(props: { searchParams: Promise<SearchParams> }) {
  return (
    <Suspense fallback={<BoardSkeleton />}>
      <JobBoard {...props} />
    </Suspense>
  );
}
