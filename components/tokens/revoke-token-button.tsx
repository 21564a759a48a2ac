"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { requestJson } from "@/components/forms/api";
import { apiPaths } from "@/lib/shared/api-paths";
import { Spinner } from "@/components/forms/fields";

/** Revokes an access token after an explicit confirmation. */
export function RevokeTokenButton({ id, name }: { id: string; name: string }) {
  const router = useRouter();
  const [stage, setStage] = useState<"idle" | "confirm" | "busy">("idle");
  const [error, setError] = useState<string | null>(null);

  async function revoke() {
    setStage("busy");
    setError(null);
    const result = await requestJson(apiPaths.token(id), { method: "DELETE" });
    if (result.ok) {
      setStage("idle");
      router.refresh();
      return;
    }
    setStage("confirm");
    setError(result.error);
  }

  if (stage === "idle") {
    return (
      <button type="button" className="btn btn-sm btn-danger" onClick={() => setStage("confirm")}>
        Revoke
      </button>
    );
  }
  return (
    <div className="flex flex-wrap items-center gap-2" role="group" aria-label={`Revoke ${name}`}>
      <button
        type="button"
        className="btn btn-sm btn-danger"
        onClick={revoke}
        disabled={stage === "busy"}
        autoFocus
      >
        {stage === "busy" ? <Spinner className="size-3.5" /> : null}
        Yes, revoke
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
