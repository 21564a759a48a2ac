"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { api, callApi } from "@/components/api-client";

/** What the disclosure marks read once it is open: the thread, up to the newest shown message. */
export interface ThreadReadMark {
  jobId: string;
  proposalId: string;
  upTo: string;
}

/**
 * A <details> that stays as the reader left it when the page refreshes (after sending a
 * message the thread has nothing unread, and a server-decided `open` would fold it away).
 * Once it is open with unread messages shown, it marks them read (an explicit POST: showing
 * the page changed nothing) and refreshes the page's counts (its badge, the header's bell).
 */
export function ThreadDisclosure({
  defaultOpen,
  markRead,
  summary,
  children,
}: {
  defaultOpen: boolean;
  /** Null when nothing shown is unread. */
  markRead: ThreadReadMark | null;
  summary: ReactNode;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(defaultOpen);
  const router = useRouter();
  const marked = useRef<string | null>(null);
  useEffect(() => {
    if (!open || !markRead || marked.current === markRead.upTo) return;
    marked.current = markRead.upTo;
    const { jobId, proposalId, upTo } = markRead;
    void callApi(
      api.POST("/api/v1/jobs/{id}/proposals/{proposalId}/messages/read", {
        params: { path: { id: jobId, proposalId } },
        body: { upTo },
      }),
    ).then((result) => {
      if (result.ok) router.refresh();
    });
  }, [open, markRead, router]);
  return (
    <details
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
      className="mt-2 rounded-lg border border-slate-200 bg-slate-50 px-4 py-3 dark:border-slate-800 dark:bg-slate-900/60"
      data-testid="thread"
    >
      {summary}
      {children}
    </details>
  );
}
