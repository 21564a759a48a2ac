"use client";

import { api, callApi } from "@/components/api-client";
import { ConfirmButton } from "@/components/ui/confirm-button";

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
      action={() =>
        callApi(
          api.POST("/api/v1/jobs/{id}/proposals/{proposalId}/reject", {
            params: { path: { id: jobId, proposalId } },
          }),
        )
      }
    />
  );
}
