import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { ActionPanel } from "@/components/jobs/job-page/action-panel";
import { BidSection } from "@/components/jobs/job-page/bid-section";
import { JobDelivery } from "@/components/jobs/job-page/job-delivery";
import { JobDescription } from "@/components/jobs/job-page/job-description";
import { JobHeader } from "@/components/jobs/job-page/job-header";
import { JobProposals } from "@/components/jobs/job-page/job-proposals";
import { JobReviews } from "@/components/jobs/job-page/job-reviews";
import { JobSummary } from "@/components/jobs/job-page/job-summary";
import { EscrowStatus } from "@/components/jobs/escrow/escrow-status";
import { JobProgress } from "@/components/jobs/job-progress";
import { PaymentStatus } from "@/components/jobs/payment-status";
import { currentWallet } from "@/lib/auth/session-cookie";
import { getJobThreads } from "@/lib/conversations/job-threads";
import { getDb } from "@/lib/db";
import { DomainError } from "@/lib/platform/errors";
import { getJob } from "@/lib/marketplace/jobs";
import { isAdmin } from "@/lib/marketplace/protected-payments";
import { getJobPageView, type JobPageView } from "@/lib/views/job-page";
import { getPublicPaymentConfig } from "@/lib/payments/chain/public-config";
import { getEscrowSettings } from "@/lib/payments/escrow/settings";
import { getJobPayment } from "@/lib/payments/ledger/payment-view";
import { requestTime } from "@/lib/shared/format";

type Params = { params: Promise<{ id: string }> };

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

async function loadView(id: string): Promise<JobPageView> {
  try {
    return await getJobPageView(await getDb(), id, (await currentWallet()) ?? null);
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") notFound();
    throw error;
  }
}

function paymentConfig() {
  try {
    return getPublicPaymentConfig();
  } catch {
    return null;
  }
}

/** The job's protected payment once it is held (or was), else null: pay-now shows none. */
async function protectedPayment(view: JobPageView) {
  if (view.job.status === "open" && !view.paidProposalId) return null;
  const payment = await getJobPayment(await getDb(), view.job.id);
  return payment?.mode === "escrow" && payment.escrow
    ? { ...payment, escrow: payment.escrow }
    : null;
}

export default async function JobPage({ params }: Params) {
  await connection();
  const { id } = await params;
  const view = await loadView(id);
  const { job } = view;
  const isPoster = view.role === "poster";
  const now = requestTime();
  const escrowPayment = await protectedPayment(view);
  const threads = await getJobThreads(
    await getDb(),
    view.viewer,
    job,
    [...view.activeProposals, ...view.rejectedProposals],
    view.agents,
  );

  return (
    <div className="space-y-6">
      <JobHeader job={job} isPoster={isPoster} now={now} />

      <div className="card p-4 sm:p-5">
        <JobProgress status={job.status} />
      </div>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
        <JobSummary
          job={job}
          protectedPayment={escrowPayment !== null}
          activeProposals={view.activeProposals.length}
          assignedAgent={view.assignedAgent}
        />

        <div className="space-y-6 lg:col-span-2">
          <JobDescription job={job} />
          <JobDelivery job={job} canDownload={view.canDownload} />
          {view.payment ? <PaymentStatus payment={view.payment} /> : null}
          {escrowPayment ? (
            <EscrowStatus
              escrow={escrowPayment.escrow}
              network={escrowPayment.network}
              authorizationTx={escrowPayment.txHash}
              job={job}
              agentName={view.assignedAgent?.name ?? "the agent"}
              viewer={view.viewer}
              viewerIsPoster={isPoster}
              viewerIsAgent={view.role === "assigned_agent"}
              viewerIsAdmin={view.viewer !== null && isAdmin(view.viewer)}
              disputesAvailable={(getEscrowSettings()?.admins.length ?? 0) > 0}
              now={now}
            />
          ) : null}
          <ActionPanel view={view} escrow={escrowPayment?.escrow ?? null} now={now} />
          <JobReviews reviews={view.reviews} />
          <JobProposals
            view={view}
            payment={isPoster && job.status === "open" ? paymentConfig() : null}
            threads={threads}
            now={now}
          />
          <BidSection view={view} />
        </div>
      </div>
    </div>
  );
}
