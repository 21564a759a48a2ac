import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { AgentAvatar } from "@/components/agents/agent-avatar";
import { formatDate, pluralize, shortAddress } from "@/lib/shared/format";
import { firstParam, type SearchParams } from "@/components/search-params";
import { CategoryBadge } from "@/components/ui/badges";
import { Pagination } from "@/components/ui/pagination";
import { RatingStars } from "@/components/ui/rating";
import { getDb } from "@/lib/db";
import { DomainError } from "@/lib/errors";
import { currentWallet } from "@/lib/auth/session";
import { canEditAgent, getAgent } from "@/lib/marketplace/agents";
import { listReviews } from "@/lib/marketplace/reviews";
import type { AgentView } from "@/lib/shared/views";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

async function loadAgent(id: string): Promise<AgentView> {
  try {
    return await getAgent(await getDb(), id);
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  await connection();
  try {
    return { title: (await getAgent(await getDb(), (await params).id)).name };
  } catch {
    return { title: "Agent" };
  }
}

export default async function AgentPage({ params, searchParams }: Props) {
  await connection();
  const agent = await loadAgent((await params).id);
  const mayEdit = canEditAgent(agent, (await currentWallet()) ?? null);
  const db = await getDb();
  let cursor = firstParam(await searchParams, "cursor");
  let reviews;
  try {
    reviews = await listReviews(db, agent.id, { limit: 20, cursor });
  } catch (error) {
    if (!(error instanceof DomainError && error.kind === "invalid")) throw error;
    cursor = undefined;
    reviews = await listReviews(db, agent.id, { limit: 20 });
  }

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <Link href="/agents" className="link inline-flex items-center gap-1 text-sm">
          <span aria-hidden="true">←</span> All agents
        </Link>
        {mayEdit ? (
          <Link href={`/agents/${agent.id}/edit`} className="btn btn-secondary btn-sm">
            Edit agent
          </Link>
        ) : null}
      </div>

      <header className="card flex flex-col gap-5 p-5 sm:flex-row sm:items-start sm:p-8">
        <AgentAvatar id={agent.id} name={agent.name} size="lg" />
        <div className="min-w-0 flex-1 space-y-3">
          <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl dark:text-white">
            {agent.name}
          </h1>
          <RatingStars rating={agent.rating} reviewCount={agent.reviewCount} size="lg" />
          {agent.description ? (
            <p className="max-w-2xl text-sm whitespace-pre-wrap text-slate-700 dark:text-slate-300">
              {agent.description}
            </p>
          ) : null}
          <div className="flex flex-wrap gap-1.5">
            {agent.categories.map((category) => (
              <CategoryBadge key={category} category={category} />
            ))}
          </div>
        </div>
      </header>

      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        <Stat label="Rating">
          {agent.reviewCount > 0 ? `${agent.rating.toFixed(2)} / 5` : "No reviews"}
        </Stat>
        <Stat label="Reviews">{agent.reviewCount.toLocaleString("en-US")}</Stat>
        <Stat label="Completed jobs">
          <span data-testid="completed-jobs">{agent.completedJobs.toLocaleString("en-US")}</span>
        </Stat>
        <Stat label="Member since">{formatDate(agent.createdAt)}</Stat>
      </dl>

      <div className="grid gap-6 lg:grid-cols-3">
        <section className="space-y-3 lg:col-span-2" aria-labelledby="reviews-title">
          <h2 id="reviews-title" className="text-lg font-semibold">
            Reviews
          </h2>
          {reviews.items.length === 0 ? (
            <p className="card p-5 text-sm text-slate-600 dark:text-slate-400">
              No reviews yet. Posters review an agent after paying for a job.
            </p>
          ) : (
            <ul className="space-y-3">
              {reviews.items.map((review) => (
                <li key={review.id} className="card p-4 sm:p-5" data-testid="review">
                  <div className="flex flex-wrap items-center justify-between gap-2">
                    <RatingStars rating={review.rating} />
                    <span className="text-xs text-slate-500 dark:text-slate-400">
                      <time dateTime={review.createdAt}>{formatDate(review.createdAt)}</time>
                    </span>
                  </div>
                  {review.comment ? (
                    <p className="mt-2 text-sm whitespace-pre-wrap text-slate-700 dark:text-slate-300">
                      {review.comment}
                    </p>
                  ) : null}
                  <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
                    By <span className="font-mono">{shortAddress(review.reviewerAddress)}</span> ·{" "}
                    <Link href={`/jobs/${review.jobId}`} className="link">
                      View job
                    </Link>
                  </p>
                </li>
              ))}
            </ul>
          )}
          <Pagination
            basePath={`/agents/${agent.id}`}
            params={{}}
            cursor={cursor}
            nextCursor={reviews.nextCursor}
            label="Review pages"
          />
        </section>
        <aside className="card h-fit space-y-4 p-5" aria-label="Wallets">
          <div>
            <h2 className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
              Payee wallet
            </h2>
            <p className="mt-1 font-mono text-xs break-all">{agent.walletAddress}</p>
            <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">
              Receives the USDC for bids made from now on; each bid is paid to the wallet it was
              made with.
            </p>
          </div>
          <div>
            <h2 className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
              Operator
            </h2>
            <p className="mt-1 font-mono text-xs break-all">{agent.operatorAddress}</p>
          </div>
          <p className="text-xs text-slate-500 dark:text-slate-400">
            {pluralize(agent.completedJobs, "job")} completed on the marketplace.
          </p>
        </aside>
      </div>
    </div>
  );
}

function Stat({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="card p-4">
      <dt className="text-xs font-medium text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-1 text-lg font-semibold text-slate-900 dark:text-white">{children}</dd>
    </div>
  );
}
