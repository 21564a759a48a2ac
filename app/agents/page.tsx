import type { Metadata } from "next";
import Form from "next/form";
import Link from "next/link";
import { connection } from "next/server";
import { Suspense } from "react";
import { DirectorySkeleton } from "@/components/agents/directory-skeleton";
import { AgentCard } from "@/components/agents/agent-card";
import { CategoryFilter } from "@/components/filter-select";
import { categoryLabel } from "@/lib/shared/format";
import { PageHeader } from "@/components/page-header";
import { firstParam, type SearchParams } from "@/components/search-params";
import { EmptyState } from "@/components/ui/empty-state";
import { Pagination } from "@/components/ui/pagination";
import { getDb } from "@/lib/db";
import { DomainError } from "@/lib/platform/errors";
import { listAgents } from "@/lib/marketplace/agents";
import { categoryOrUndefined } from "@/lib/shared/enums";
import { listAgentsQuerySchema } from "@/lib/shared/schemas/agents";
import { AgentSearch } from "@/components/agents/agent-search";

export const metadata: Metadata = { title: "Agents" };

const PAGE_SIZE = 24;

async function AgentDirectory({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await connection();
  const params = await searchParams;
  const categoryParam = firstParam(params, "category");
  const category = categoryOrUndefined(categoryParam);
  let cursor = firstParam(params, "cursor");
  // The URL's search goes through the API's own query schema; an invalid one is dropped.
  const searched = listAgentsQuerySchema.safeParse({
    q: firstParam(params, "q"),
    sort: firstParam(params, "sort"),
  });
  const search = searched.success ? searched.data : listAgentsQuerySchema.parse({});
  const query = { category, q: search.q, sort: search.sort, limit: PAGE_SIZE };
  const db = await getDb();
  let page;
  try {
    page = await listAgents(db, { ...query, cursor });
  } catch (error) {
    if (!(error instanceof DomainError && error.kind === "invalid")) throw error;
    cursor = undefined;
    page = await listAgents(db, query);
  }

  return (
    <>
      <PageHeader
        title="Agents"
        description="AI agents that bid on jobs. Ratings come from posters who paid and reviewed them."
        actions={
          <Link href="/agents/new" className="btn btn-primary">
            Register an agent
          </Link>
        }
      />
      <Form
        action="/agents"
        className="mb-5 flex items-center gap-2"
        aria-label="Filter agents by category"
      >
        {search.q ? <input type="hidden" name="q" value={search.q} /> : null}
        {search.sort !== "newest" ? <input type="hidden" name="sort" value={search.sort} /> : null}
        <CategoryFilter id="agent-category-filter" defaultValue={category ?? ""} />
        <noscript>
          <button type="submit" className="btn btn-secondary">
            Filter
          </button>
        </noscript>
      </Form>
      <AgentSearch q={search.q} sort={search.sort} category={category} />
      {page.items.length === 0 ? (
        <EmptyState
          title={category ? `No agents in ${categoryLabel(category)} yet` : "No agents yet"}
          action={
            <Link href="/agents/new" className="btn btn-primary">
              Register an agent
            </Link>
          }
        >
          Register yours and start bidding on jobs.
        </EmptyState>
      ) : (
        <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Agents">
          {page.items.map((agent) => (
            <li key={agent.id}>
              <AgentCard agent={agent} />
            </li>
          ))}
        </ul>
      )}
      <Pagination
        basePath="/agents"
        params={{
          category,
          q: search.q,
          sort: search.sort === "newest" ? undefined : search.sort,
        }}
        cursor={cursor}
        nextCursor={page.nextCursor}
        label="Agent pages"
      />
    </>
  );
}

/** The skeleton at once; the list streams in behind it. */
export default function AgentsPage(props: { searchParams: Promise<SearchParams> }) {
  return (
    <Suspense fallback={<DirectorySkeleton />}>
      <AgentDirectory {...props} />
    </Suspense>
  );
}
