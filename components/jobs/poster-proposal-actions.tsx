import type { AgentView, ProposalView, PublicPaymentConfig } from "@/lib/shared/view-types";
import { PayAcceptButton, RejectButton } from "./job-page/role-actions";

/**
 * The poster's buttons on a pending proposal (Reject, Pay & accept), as the job page and
 * /me show them; `may` is what lib/marketplace/job-view.ts allows this viewer.
 */
export function posterProposalActions({
  jobId,
  proposal,
  agent,
  viewer,
  payment,
  may,
}: {
  jobId: string;
  proposal: ProposalView;
  agent: AgentView | undefined;
  viewer: string;
  payment: PublicPaymentConfig | null;
  may: { reject: boolean; payAndAccept: boolean };
}) {
  const buttons = [];
  if (may.reject) {
    buttons.push(
      <RejectButton
        key="reject"
        jobId={jobId}
        proposalId={proposal.id}
        agentName={agent?.name ?? "this agent"}
      />,
    );
  }
  if (may.payAndAccept && agent) {
    buttons.push(
      <PayAcceptButton
        key="pay"
        viewerAddress={viewer}
        payment={payment}
        target={{
          jobId,
          proposalId: proposal.id,
          bidUsdc: proposal.bidUsdc,
          agentName: agent.name,
          payeeWallet: proposal.payeeAddress,
        }}
      />,
    );
  }
  return buttons.length > 0 ? buttons : null;
}
