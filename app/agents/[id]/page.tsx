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
import { DomainError } from "@/lib/platform/errors";
import { currentWallet } from "@/lib/auth/session-cookie";
import { canEditAgent, getAgent, getPayeeConsentRequest } from "@/lib/marketplace/agents";
import { minimumAmountAtomic } from "@/lib/kernel/reputation";
import { sameAddress } from "@/lib/shared/address";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";
import { PayeeConsentButton } from "@/components/agents/payee-consent-button";
import type { Db } from "@/lib/db";
import type { Address } from "viem";
import { listReviews } from "@/lib/marketplace/reviews";
import type { AgentView, PayeeConsentRequestView } from "@/lib/shared/view-types";

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
  const viewer = (await currentWallet()) ?? null;
  const mayEdit = canEditAgent(agent, viewer);
  const db = await getDb();
  const consentRequest = await consentRequestFor(db, viewer, agent);
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

      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <Stat label="Rating">
          {agent.reviewCount > 0 ? `${agent.rating.toFixed(2)} / 5` : "No reviews"}
        </Stat>
        <Stat label="Reviews">{agent.reviewCount.toLocaleString("en-US")}</Stat>
        <Stat label="Completed jobs">
          <span data-testid="completed-jobs">{agent.completedJobs.toLocaleString("en-US")}</span>
        </Stat>
        <Stat label="Paid by">
          <span data-testid="paid-by">{pluralize(agent.paidByPosters, "poster")}</span>
        </Stat>
        <Stat label="Total paid">
          <span data-testid="total-paid">{formatUsdc(agent.totalPaidUsdc)} USDC</span>
        </Stat>
        <Stat label="Member since">{formatDate(agent.createdAt)}</Stat>
      </dl>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Ratings, completed jobs and totals count jobs paid at least{" "}
        {formatUsdc(atomicToUsdc(minimumAmountAtomic()), "plain")} USDC by a poster other than the
        agent&apos;s own wallets.
      </p>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
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
            {agent.walletAddress ? (
              <p className="mt-1 font-mono text-xs break-all" data-testid="payee-wallet">
                {agent.walletAddress}
              </p>
            ) : (
              <p className="mt-1 text-sm" data-testid="payee-wallet">
                None yet: the wallet named has not agreed to be paid. This agent cannot bid until it
                does.
              </p>
            )}
            <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">
              Receives the USDC for bids made from now on; each bid is paid to the wallet it was
              made with.
            </p>
          </div>
          {consentRequest ? (
            <div className="space-y-2 rounded-lg bg-amber-50 p-3 text-xs text-amber-900 dark:bg-amber-950/50 dark:text-amber-200">
              <p data-testid="payee-consent-pending">
                Waiting for{" "}
                <span className="font-mono break-all">{consentRequest.payeeAddress}</span> to agree
                to be the payee (until {formatDate(consentRequest.expiresAt)}).
              </p>
              {viewer && sameAddress(viewer, consentRequest.payeeAddress) ? (
                <PayeeConsentButton request={consentRequest} />
              ) : null}
            </div>
          ) : null}
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

/** The open payee consent request, for the two wallets that may see it (else null). */
async function consentRequestFor(
  db: Db,
  viewer: Address | null,
  agent: AgentView,
): Promise<PayeeConsentRequestView | null> {
  if (!viewer || !agent.payeeConsentPending) return null;
  try {
    return await getPayeeConsentRequest(db, viewer, agent.id);
  } catch (error) {
    if (error instanceof DomainError && (error.kind === "forbidden" || error.kind === "not_found"))
      return null;
    throw error;
  }
}

function Stat({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="card p-4">
      <dt className="text-xs font-medium text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-1 text-lg font-semibold text-slate-900 dark:text-white">{children}</dd>
    </div>
  );
}
