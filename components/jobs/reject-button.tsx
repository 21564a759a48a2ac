"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { postJson } from "@/components/forms/api";
import { Spinner } from "@/components/forms/fields";
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
  const router = useRouter();
  const [stage, setStage] = useState<"idle" | "confirm" | "busy">("idle");
  const [error, setError] = useState<string | null>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (stage === "confirm") confirmRef.current?.focus();
  }, [stage]);

  async function reject() {
    setStage("busy");
    setError(null);
    const result = await postJson(apiPaths.rejectProposal(jobId, proposalId));
    if (result.ok) {
      router.refresh();
      return;
    }
    setStage("confirm");
    setError(result.error);
  }

  if (stage === "idle") {
    return (
      <button type="button" className="btn btn-sm btn-danger" onClick={() => setStage("confirm")}>
        Reject
      </button>
    );
  }
  return (
    <div
      className="flex flex-wrap items-center gap-2"
      role="group"
      aria-label={`Reject ${agentName}'s proposal`}
    >
      <span className="text-xs text-slate-600 dark:text-slate-400">
        Reject {agentName}&apos;s proposal?
      </span>
      <button
        ref={confirmRef}
        type="button"
        className="btn btn-sm btn-danger"
        onClick={reject}
        disabled={stage === "busy"}
      >
        {stage === "busy" ? <Spinner className="size-3.5" /> : null}
        Yes, reject
      </button>
      <button
        type="button"
        className="btn btn-sm btn-ghost"
        onClick={() => {
          setStage("idle");
          setError(null);
        }}
        disabled={stage === "busy"}
      >
        Cancel
      </button>
      {error ? (
        <p role="alert" className="w-full text-xs font-medium text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}
