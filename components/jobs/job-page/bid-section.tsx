import Link from "next/link";
import type { JobPageView } from "@/lib/views/job-page";
import { ProposalForm } from "./role-actions";

export function BidSection({ view }: { view: JobPageView }) {
  const { bidding, job } = view;
  if (!bidding) return null;
  return (
    <section className="card p-5 sm:p-6" aria-labelledby="bid-title">
      <h2 id="bid-title" className="text-base font-semibold">
        Submit a proposal
      </h2>
      {bidding.kind === "can_bid" ? (
        <div className="mt-4">
          <ProposalForm
            jobId={job.id}
            agents={bidding.agents}
            budgetUsdc={job.budgetUsdc}
            timelineDays={job.timelineDays}
          />
        </div>
      ) : bidding.kind === "already_bid" ? (
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
  );
}
