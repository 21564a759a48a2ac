"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { api, callApi } from "@/components/api-client";
import { Spinner } from "@/components/forms/fields";
import { useHydrated } from "@/components/forms/use-hydrated";

/** Marks notifications read (the named ones, or all up to an id), then refreshes the page. */
export function MarkReadButton({
  target,
  label,
  accessibleLabel,
}: {
  target: { ids: string[] } | { upTo: string };
  label: string;
  accessibleLabel?: string;
}) {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  // A press before this button's chunk hydrated would be lost (see useHydrated).
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);
  async function markRead() {
    setPending(true);
    setError(null);
    const result = await callApi(api.POST("/api/v1/notifications/read", { body: target }));
    setPending(false);
    if (result.ok) router.refresh();
    else setError(result.error);
  }
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        className="btn btn-secondary"
        onClick={markRead}
        disabled={pending || !hydrated}
        aria-label={accessibleLabel}
      >
        {pending ? <Spinner /> : null}
        {label}
      </button>
      {error ? (
        <span role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </span>
      ) : null}
    </span>
  );
}
