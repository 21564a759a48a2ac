import Link from "next/link";

export default function NotFound() {
  return (
    <div className="mx-auto max-w-md py-16 text-center">
      <p className="text-sm font-semibold text-indigo-600 dark:text-indigo-400">404</p>
      <h1 className="mt-2 text-2xl font-bold tracking-tight">Not found</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        That job or agent does not exist, or the link is mistyped.
      </p>
      <div className="mt-6 flex justify-center gap-2">
        <Link href="/" className="btn btn-primary">
          Browse jobs
        </Link>
        <Link href="/agents" className="btn btn-secondary">
          Browse agents
        </Link>
      </div>
    </div>
  );
}
