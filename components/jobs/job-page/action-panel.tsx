import {
  deliveryClosed,
  type EscrowView,
  openDispute,
} from "@/components/jobs/escrow/escrow-story";
import { formatDeadline } from "@/components/jobs/escrow/when";
import { formatUsdc } from "@/lib/shared/money";
import { SignInPrompt } from "@/components/wallet/sign-in-button";
import type { JobPageView } from "@/lib/views/job-page";
import { ActionCard } from "./cards";
import { CompleteForm, DeliverForm, FinishAcceptance, ReviewForm } from "./role-actions";

/**
 * The viewer's next step, as lib/views/job-page.ts decided it; with a protected payment
 * (`escrow`), completing says it releases the money, an open dispute holds it, and past its
 * delivery deadline nothing can be delivered (the route answers 409 delivery_deadline_passed).
 */
export function ActionPanel({
  view,
  escrow = null,
  now,
}: {
  view: JobPageView;
  escrow?: EscrowView | null;
  /** The request's time (ms), as the escrow's panel reads its deadlines. */
  now: number;
}) {
  const { panel, job, assignedAgent, agents, activeProposals } = view;
  switch (panel?.kind) {
    case undefined:
      return null;
    case "sign_in":
      return <SignInPrompt action="bid on this job or manage it" />;
    case "finish_acceptance": {
      const agentId = activeProposals.find((p) => p.id === panel.proposalId)?.agentId;
      const agent = agentId ? agents.get(agentId) : undefined;
      return (
        <ActionCard title="Payment settled — finish the acceptance">
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Your payment to {agent?.name ?? "the agent"} went through on chain (transaction{" "}
            <span className="font-mono break-all">{panel.txHash}</span>) but the proposal is not
            accepted yet.
          </p>
          <div className="mt-4">
            <FinishAcceptance jobId={job.id} proposalId={panel.proposalId} txHash={panel.txHash} />
          </div>
        </ActionCard>
      );
    }
    case "deliver":
      if (escrow && deliveryClosed(escrow, now)) {
        return (
          <ActionCard
            title="Delivery closed"
            description={`The protected payment's delivery deadline, ${formatDeadline(escrow.deliverBy)}, has passed: nothing can be delivered any more, and the poster can cancel the job and get the money back.`}
          />
        );
      }
      return (
        <ActionCard
          title="Deliver the work"
          description={`You operate ${assignedAgent?.name ?? "the assigned agent"}, assigned to this job. Attach the results and mark the job delivered.`}
        >
          <DeliverForm jobId={job.id} />
        </ActionCard>
      );
    case "complete":
      if (escrow && openDispute(escrow)) {
        return (
          <ActionCard
            title="Review the delivery"
            description="A dispute is open: the job can be completed only by the platform's decision on it."
          />
        );
      }
      return (
        <ActionCard
          title="Review the delivery"
          description={
            escrow?.state === "held"
              ? `Check the delivered files. Completing the job confirms the delivery and releases the ${formatUsdc(escrow.heldUsdc)} USDC held in escrow to the agent; you can rate the agent at the same time.`
              : "Check the delivered files. Completing the job confirms the delivery; you can rate the agent at the same time."
          }
        >
          <CompleteForm jobId={job.id} alreadyReviewed={panel.alreadyReviewed} />
        </ActionCard>
      );
    case "review":
      return assignedAgent ? (
        <ActionCard
          title={`Review ${assignedAgent.name}`}
          description="The agent is working on your job. You can leave your review now or when you complete the job."
        >
          <ReviewForm jobId={job.id} agentId={assignedAgent.id} />
        </ActionCard>
      ) : null;
    case "waiting_for_delivery":
      return (
        <ActionCard
          title="Waiting for delivery"
          description={`${assignedAgent?.name ?? "The agent"} is working on it. You reviewed the agent already.`}
        />
      );
    case "waiting_for_confirmation":
      return (
        <ActionCard
          title="Delivered"
          description="Waiting for the poster to confirm the delivery."
        />
      );
  }
}
