"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { api, callApi } from "@/components/api-client";
import { Spinner } from "@/components/forms/fields";
import { useHydrated } from "@/components/forms/use-hydrated";

/** The job is paid (a succeeded settlement) but the accept call never landed: finish it. */
export function FinishAcceptance({
  jobId,
  proposalId,
  txHash,
}: {
  jobId: string;
  proposalId: string;
  txHash: string;
}) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  // A press before this button's chunk hydrated would be lost (see useHydrated).
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);

  async function finish() {
    setBusy(true);
    setError(null);
    const result = await callApi(
      api.POST("/api/v1/jobs/{id}/accept", {
        params: { path: { id: jobId } },
        body: { proposalId, txHash },
      }),
    );
    if (result.ok) {
      router.refresh();
      return;
    }
    setBusy(false);
    setError(result.error);
  }

  return (
    <div className="space-y-2">
      <button
        type="button"
        className="btn btn-primary w-full sm:w-auto"
        onClick={finish}
        disabled={busy || !hydrated}
      >
        {busy ? <Spinner /> : null}
        {error ? "Retry acceptance" : "Finish acceptance"}
      </button>
      {error ? (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}
