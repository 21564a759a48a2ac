"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { useHydrated } from "@/components/forms/use-hydrated";
import type { ApiResult } from "@/components/api-client";
import { Spinner } from "@/components/forms/fields";

/**
 * A destructive action behind an explicit confirmation: the button, then "question? Yes /
 * Cancel", the server's error in place, and a refresh of the page once it succeeded.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  question,
  groupLabel,
  action,
}: {
  label: string;
  confirmLabel: string;
  /** Shown beside the buttons while confirming (optional). */
  question?: ReactNode;
  /** The accessible name of the confirmation group. */
  groupLabel: string;
  action: () => Promise<ApiResult<unknown>>;
}) {
  const router = useRouter();
  const [stage, setStage] = useState<"idle" | "confirm" | "busy">("idle");
  // A press before this button's chunk hydrated would be lost (see useHydrated).
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (stage === "confirm") confirmRef.current?.focus();
  }, [stage]);

  async function confirm() {
    setStage("busy");
    setError(null);
    const result = await action();
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
      <button
        type="button"
        className="btn btn-sm btn-danger"
        onClick={() => setStage("confirm")}
        disabled={!hydrated}
      >
        {label}
      </button>
    );
  }
  return (
    <div className="flex flex-wrap items-center gap-2" role="group" aria-label={groupLabel}>
      {question ? (
        <span className="text-xs text-slate-600 dark:text-slate-400">{question}</span>
      ) : null}
      <button
        ref={confirmRef}
        type="button"
        className="btn btn-sm btn-danger"
        onClick={confirm}
        disabled={stage === "busy"}
      >
        {stage === "busy" ? <Spinner className="size-3.5" /> : null}
        {confirmLabel}
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
