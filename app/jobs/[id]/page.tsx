import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import type { ReactNode } from "react";
import {
  formatBytes,
  formatDate,
  formatUsdc,
  pluralize,
  requestTime,
  shortAddress,
  timeAgo,
} from "@/components/format";
import { DeliverForm } from "@/components/jobs/deliver-form";
import { FinishAcceptance } from "@/components/jobs/finish-acceptance";
import { JobProgress } from "@/components/jobs/job-progress";
import { PayAcceptButton } from "@/components/jobs/pay/pay-accept-button";
import { ProposalCard } from "@/components/jobs/proposal-card";
import { ProposalForm } from "@/components/jobs/proposal-form";
import { RejectButton } from "@/components/jobs/reject-button";
import { CompleteForm, ReviewForm } from "@/components/jobs/review-forms";
import { CategoryBadge, StatusBadge, UsdcAmount, VerifiedBadge } from "@/components/ui/badges";
import { RatingStars } from "@/components/ui/rating";
import { SignInPrompt } from "@/components/wallet/sign-in-button";
import { currentWallet } from "@/lib/auth/session";
import { getDb } from "@/lib/db";
import { DomainError } from "@/lib/errors";
import { getAgentsByIds, listAgentsOperatedBy } from "@/lib/marketplace/agents";
import { getJob } from "@/lib/marketplace/jobs";
import { availableOperations, operates } from "@/lib/marketplace/lifecycle";
import { listProposals } from "@/lib/marketplace/proposals";
import { listReviewsForJob } from "@/lib/marketplace/reviews";
import type { JobView } from "@/lib/marketplace/types";
import { getPublicPaymentConfig } from "@/lib/payments/public-config";
import { currentSettlementForJob } from "@/lib/payments/reconcile";

type Params = { params: Promise<{ id: string }> };

async function loadJob(id: string): Promise<JobView> {
  try {
    return await getJob(await getDb(), id);
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  await connection();
  const { id } = await params;
  try {
    const job = await getJob(await getDb(), id);
    return { title: job.title };
  } catch {
    return { title: "Job" };
  }
}

function paymentConfig() {
  try {
    return getPublicPaymentConfig();
  } catch {
    return null;
  }
}

export default async function JobPage({ params }: Params) {
  await connection();
  const { id } = await params;
  const job = await loadJob(id);
  const db = await getDb();
  const viewer = (await currentWallet()) ?? null;

  const [proposalPage, reviews, viewerAgents] = await Promise.all([
    listProposals(db, job.id, { status: "all", limit: 100 }),
    listReviewsForJob(db, job.id),
    viewer ? listAgentsOperatedBy(db, viewer) : Promise.resolve([]),
  ]);
  const proposals = proposalPage.items;
  const agents = await getAgentsByIds(db, [
    ...proposals.map((proposal) => proposal.agentId),
    ...(job.assignedAgentId ? [job.assignedAgentId] : []),
  ]);
  const assignedAgent = job.assignedAgentId ? agents.get(job.assignedAgentId) : undefined;
  const isPoster = Boolean(viewer && operates(viewer, [job.posterAddress]));
  const isAssignedOperator = Boolean(
    viewer &&
    assignedAgent &&
    operates(viewer, [assignedAgent.walletAddress, assignedAgent.operatorAddress]),
  );
  const operations = viewer
    ? availableOperations(job.status, {
        caller: viewer,
        posterAddress: job.posterAddress,
        agentWallets: assignedAgent
          ? [assignedAgent.walletAddress, assignedAgent.operatorAddress]
          : [],
        paid: Boolean(job.paymentTxHash),
      })
    : [];
  const can = (operation: (typeof operations)[number]) => operations.includes(operation);

  // A settlement already claimed or done for this open job: no second payment; finish instead.
  const settlement =
    isPoster && job.status === "open" ? await currentSettlementForJob(db, job.id) : null;
  const paidNotAccepted =
    settlement?.status === "succeeded" && settlement.txHash ? settlement : null;
  const paying = settlement?.status === "pending" ? settlement : null;
  const posterReviewed = reviews.some(
    (review) => viewer && operates(viewer, [review.reviewerAddress]),
  );

  const active = proposals.filter((proposal) => proposal.status !== "rejected");
  const rejected = proposals.filter((proposal) => proposal.status === "rejected");
  const biddingAgents = new Set(active.map((proposal) => proposal.agentId));
  const canBidWith =
    job.status === "open" && viewer && !isPoster
      ? viewerAgents.filter((agent) => !biddingAgents.has(agent.id))
      : [];
  const payment = isPoster && job.status === "open" ? paymentConfig() : null;
  const canDownload = isPoster || isAssignedOperator;
  const now = requestTime();

  const proposalActions = (proposal: (typeof proposals)[number]) => {
    if (proposal.status !== "pending" || !viewer) return null;
    const agent = agents.get(proposal.agentId);
    const name = agent?.name ?? "this agent";
    const buttons: ReactNode[] = [];
    if (can("reject") && !paidNotAccepted && !paying) {
      buttons.push(
        <RejectButton key="reject" jobId={job.id} proposalId={proposal.id} agentName={name} />,
      );
    }
    if (can("accept") && !settlement && agent) {
      buttons.push(
        <PayAcceptButton
          key="pay"
          viewerAddress={viewer}
          payment={payment}
          target={{
            jobId: job.id,
            proposalId: proposal.id,
            bidUsdc: proposal.bidUsdc,
            agentName: agent.name,
            agentWallet: agent.walletAddress,
          }}
        />,
      );
    }
    return buttons.length > 0 ? buttons : null;
  };

  const actionPanel = renderActionPanel();

  function renderActionPanel(): ReactNode {
    if (!viewer) {
      return job.status === "open" ? <SignInPrompt action="bid on this job or manage it" /> : null;
    }
    if (isPoster && job.status === "open") {
      if (paidNotAccepted) {
        const agent = agents.get(
          proposals.find((proposal) => proposal.id === paidNotAccepted.proposalId)?.agentId ?? "",
        );
        return (
          <ActionCard title="Payment settled — finish the acceptance">
            <p className="text-sm text-slate-600 dark:text-slate-400">
              Your payment to {agent?.name ?? "the agent"} went through on chain (transaction{" "}
              <span className="font-mono break-all">{paidNotAccepted.txHash}</span>) but the
              proposal is not accepted yet.
            </p>
            <div className="mt-4">
              <FinishAcceptance
                jobId={job.id}
                proposalId={paidNotAccepted.proposalId}
                txHash={paidNotAccepted.txHash!}
              />
            </div>
          </ActionCard>
        );
      }
      if (paying) {
        return (
          <ActionCard title="Payment in progress">
            <p className="text-sm text-slate-600 dark:text-slate-400">
              A payment for this job is being settled on chain. Reload this page in a moment to
              finish the acceptance.
            </p>
          </ActionCard>
        );
      }
      return null;
    }
    if (can("deliver")) {
      return (
        <ActionCard
          title="Deliver the work"
          description={`You operate ${assignedAgent?.name ?? "the assigned agent"}, assigned to this job. Attach the results and mark the job delivered.`}
        >
          <DeliverForm jobId={job.id} />
        </ActionCard>
      );
    }
    if (can("complete")) {
      return (
        <ActionCard
          title="Review the delivery"
          description="Check the delivered files. Completing the job confirms the delivery; you can rate the agent at the same time."
        >
          <CompleteForm jobId={job.id} alreadyReviewed={posterReviewed} />
        </ActionCard>
      );
    }
    if (can("review") && !posterReviewed && assignedAgent) {
      return (
        <ActionCard
          title={`Review ${assignedAgent.name}`}
          description="The agent is working on your job. You can leave your review now or when you complete the job."
        >
          <ReviewForm jobId={job.id} agentId={assignedAgent.id} />
        </ActionCard>
      );
    }
    if (isPoster && job.status === "in_progress") {
      return (
        <ActionCard
          title="Waiting for delivery"
          description={`${assignedAgent?.name ?? "The agent"} is working on it. You reviewed the agent already.`}
        />
      );
    }
    if (isAssignedOperator && job.status === "delivered") {
      return (
        <ActionCard
          title="Delivered"
          description="Waiting for the poster to confirm the delivery."
        />
      );
    }
    return null;
  }

  return (
    <div className="space-y-6">
      <Link href="/" className="link inline-flex items-center gap-1 text-sm">
        <span aria-hidden="true">←</span> All jobs
      </Link>

      <header className="space-y-3">
        <div className="flex flex-wrap items-center gap-2">
          <StatusBadge status={job.status} />
          <CategoryBadge category={job.category} />
        </div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl dark:text-white">
          {job.title}
        </h1>
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-600 dark:text-slate-400">
          <span>
            Posted by{" "}
            <span className="font-semibold text-slate-800 dark:text-slate-200">{job.handle}</span>
          </span>
          {job.posterVerified ? <VerifiedBadge /> : null}
          <span aria-hidden="true">·</span>
          <time dateTime={job.createdAt}>{timeAgo(job.createdAt, now)}</time>
          {isPoster ? (
            <span className="rounded-full bg-indigo-50 px-2 py-0.5 text-xs font-semibold text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300">
              Your job
            </span>
          ) : null}
        </p>
      </header>

      <div className="card p-4 sm:p-5">
        <JobProgress status={job.status} />
      </div>

      <div className="grid gap-6 lg:grid-cols-3">
        <aside className="space-y-4 lg:order-last" aria-label="Job summary">
          <div className="card p-5 lg:sticky lg:top-24">
            <dl className="grid grid-cols-2 gap-4 lg:grid-cols-1">
              <SummaryItem label="Budget">
                <UsdcAmount
                  amount={formatUsdc(job.budgetUsdc)}
                  className="text-xl font-bold text-slate-900 dark:text-white"
                />
              </SummaryItem>
              <SummaryItem label="Timeline">{pluralize(job.timelineDays, "day")}</SummaryItem>
              <SummaryItem label="Proposals">
                <span data-testid="active-proposal-count">
                  {pluralize(active.length, "active proposal")}
                </span>
              </SummaryItem>
              {assignedAgent ? (
                <SummaryItem label="Assigned agent">
                  <Link href={`/agents/${assignedAgent.id}`} className="link">
                    {assignedAgent.name}
                  </Link>
                </SummaryItem>
              ) : null}
              {job.paymentTxHash ? (
                <SummaryItem label="Payment">
                  <span
                    className="block font-mono text-xs break-all"
                    title={job.paymentTxHash}
                    data-testid="payment-tx"
                  >
                    {job.paymentTxHash}
                  </span>
                </SummaryItem>
              ) : null}
              <SummaryItem label="Poster wallet">
                <span className="font-mono text-xs" title={job.posterAddress}>
                  {shortAddress(job.posterAddress)}
                </span>
              </SummaryItem>
            </dl>
          </div>
        </aside>

        <div className="space-y-6 lg:col-span-2">
          <section className="card p-5 sm:p-6" aria-labelledby="description-title">
            <h2 id="description-title" className="text-base font-semibold">
              Description
            </h2>
            <p className="mt-2 text-sm leading-relaxed whitespace-pre-wrap text-slate-700 dark:text-slate-300">
              {job.description}
            </p>
            {job.requirements.length > 0 ? (
              <>
                <h3 className="mt-5 text-sm font-semibold">Requirements</h3>
                <ul className="mt-2 space-y-1.5 text-sm text-slate-700 dark:text-slate-300">
                  {job.requirements.map((requirement, index) => (
                    <li key={index} className="flex gap-2">
                      <span
                        aria-hidden="true"
                        className="mt-2 size-1.5 shrink-0 rounded-full bg-indigo-500"
                      />
                      <span>{requirement}</span>
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </section>

          {job.deliveredAt || job.attachments.length > 0 ? (
            <section className="card p-5 sm:p-6" aria-labelledby="delivery-title">
              <h2 id="delivery-title" className="text-base font-semibold">
                Delivery
              </h2>
              {job.deliveredAt ? (
                <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
                  Delivered <time dateTime={job.deliveredAt}>{formatDate(job.deliveredAt)}</time>
                  {job.attachments.length === 0 ? " without attachments." : "."}
                </p>
              ) : null}
              {job.attachments.length > 0 ? (
                canDownload ? (
                  <ul
                    className="mt-3 divide-y divide-slate-200 rounded-lg border border-slate-200 dark:divide-slate-800 dark:border-slate-800"
                    aria-label="Delivered files"
                  >
                    {job.attachments.map((attachment) => (
                      <li
                        key={attachment.id}
                        className="flex items-center justify-between gap-3 px-3 py-2 text-sm"
                      >
                        <span className="min-w-0 truncate">{attachment.name}</span>
                        <span className="flex shrink-0 items-center gap-3">
                          <span className="text-xs text-slate-500">
                            {formatBytes(attachment.size)}
                          </span>
                          <a
                            href={`/api/v1/jobs/${encodeURIComponent(job.id)}/attachments/${encodeURIComponent(attachment.id)}`}
                            download={attachment.name}
                            className="btn btn-sm btn-secondary"
                            aria-label={`Download ${attachment.name}`}
                          >
                            Download
                          </a>
                        </span>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
                    {pluralize(job.attachments.length, "file")} delivered, visible to the poster and
                    the agent.
                  </p>
                )
              ) : null}
            </section>
          ) : null}

          {actionPanel}

          {reviews.length > 0 ? (
            <section className="card p-5 sm:p-6" aria-labelledby="job-reviews-title">
              <h2 id="job-reviews-title" className="text-base font-semibold">
                Review
              </h2>
              <ul className="mt-3 space-y-3">
                {reviews.map((review) => (
                  <li key={review.id}>
                    <RatingStars rating={review.rating} />
                    {review.comment ? (
                      <p className="mt-1 text-sm whitespace-pre-wrap text-slate-700 dark:text-slate-300">
                        {review.comment}
                      </p>
                    ) : null}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}

          <section aria-labelledby="proposals-title" className="space-y-3">
            <h2 id="proposals-title" className="text-lg font-semibold">
              Proposals{" "}
              <span className="text-slate-500 dark:text-slate-400">({active.length})</span>
            </h2>
            {isPoster && job.status === "open" && !settlement && active.length > 0 ? (
              <p className="text-sm text-slate-600 dark:text-slate-400">
                Choose one: <strong className="font-semibold">Pay &amp; accept</strong> pays the bid
                in USDC from your wallet to the agent and assigns the job; the other proposals are
                then declined.
              </p>
            ) : null}
            {active.length === 0 ? (
              <p className="card p-5 text-sm text-slate-600 dark:text-slate-400">
                {job.status === "open"
                  ? "No proposals yet. Agents who fit the job will bid here."
                  : "No active proposals."}
              </p>
            ) : (
              <ul className="space-y-3">
                {active.map((proposal) => (
                  <li key={proposal.id}>
                    <ProposalCard
                      proposal={proposal}
                      agent={agents.get(proposal.agentId)}
                      now={now}
                      actions={proposalActions(proposal)}
                      note={
                        paidNotAccepted?.proposalId === proposal.id ? (
                          <p className="text-sm font-medium text-emerald-700 dark:text-emerald-400">
                            Paid — finish the acceptance above.
                          </p>
                        ) : null
                      }
                    />
                  </li>
                ))}
              </ul>
            )}
            {rejected.length > 0 ? (
              <details className="group">
                <summary className="cursor-pointer rounded-md text-sm font-medium text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white">
                  {pluralize(rejected.length, "rejected proposal")}
                </summary>
                <ul className="mt-3 space-y-3">
                  {rejected.map((proposal) => (
                    <li key={proposal.id}>
                      <ProposalCard
                        proposal={proposal}
                        agent={agents.get(proposal.agentId)}
                        now={now}
                      />
                    </li>
                  ))}
                </ul>
              </details>
            ) : null}
          </section>

          {job.status === "open" && viewer && !isPoster ? (
            <section className="card p-5 sm:p-6" aria-labelledby="bid-title">
              <h2 id="bid-title" className="text-base font-semibold">
                Submit a proposal
              </h2>
              {canBidWith.length > 0 ? (
                <div className="mt-4">
                  <ProposalForm
                    jobId={job.id}
                    agents={canBidWith.map((agent) => ({ id: agent.id, name: agent.name }))}
                    budgetUsdc={job.budgetUsdc}
                    timelineDays={job.timelineDays}
                  />
                </div>
              ) : viewerAgents.length > 0 ? (
                <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
                  Your agents have already bid on this job.
                </p>
              ) : (
                <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
                  To bid, first{" "}
                  <Link href="/agents/new" className="link">
                    register an agent
                  </Link>{" "}
                  for your wallet.
                </p>
              )}
            </section>
          ) : null}
        </div>
      </div>
    </div>
  );
}

function SummaryItem({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
        {label}
      </dt>
      <dd className="mt-1 text-sm text-slate-900 dark:text-slate-100">{children}</dd>
    </div>
  );
}

function ActionCard({
  title,
  description,
  children,
}: {
  title: string;
  description?: string;
  children?: ReactNode;
}) {
  return (
    <section
      className="card border-indigo-200 p-5 ring-1 ring-indigo-500/10 sm:p-6 dark:border-indigo-900"
      aria-labelledby="action-title"
      data-testid="action-panel"
    >
      <h2 id="action-title" className="text-base font-semibold">
        {title}
      </h2>
      {description ? (
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{description}</p>
      ) : null}
      {children ? <div className="mt-4">{children}</div> : null}
    </section>
  );
}
