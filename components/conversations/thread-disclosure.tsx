"use client";

import { type ReactNode, useState } from "react";

/**
 * A <details> that stays as the reader left it when the page refreshes (after sending a
 * message the thread has nothing unread, and a server-decided `open` would fold it away).
 */
export function ThreadDisclosure({
  defaultOpen,
  summary,
  children,
}: {
  defaultOpen: boolean;
  summary: ReactNode;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(defaultOpen);
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
