"use client";

import Link from "next/link";

export default function ErrorPage({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <div className="mx-auto max-w-md py-16 text-center" role="alert">
      <h1 className="text-2xl font-bold tracking-tight">Something went wrong</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        The page could not be loaded. Retry, or come back in a moment.
      </p>
      {error.digest ? (
        <p className="mt-2 font-mono text-xs text-slate-500">Reference {error.digest}</p>
      ) : null}
      <div className="mt-6 flex justify-center gap-2">
        <button type="button" className="btn btn-primary" onClick={reset}>
          Retry
        </button>
        <Link href="/" className="btn btn-secondary">
          Back to jobs
        </Link>
      </div>
    </div>
  );
}
