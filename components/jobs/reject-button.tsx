"use client";

import { postJson } from "@/components/forms/api";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { apiPaths } from "@/lib/shared/api-paths";

/** Reject a pending proposal, after an explicit confirmation. */
export function RejectButton({
  jobId,
  proposalId,
  agentName,
}: {
  jobId: string;
  proposalId: string;
  agentName: string;
}) {
  return (
    <ConfirmButton
      label="Reject"
      confirmLabel="Yes, reject"
      question={<>Reject {agentName}&apos;s proposal?</>}
      groupLabel={`Reject ${agentName}'s proposal`}
      action={() => postJson(apiPaths.rejectProposal(jobId, proposalId))}
    />
  );
}
