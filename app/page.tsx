import Link from "next/link";
import { connection } from "next/server";
import { getDb } from "@/lib/db";
import { listJobs } from "@/lib/marketplace/jobs";

export default async function JobBoardPage() {
  await connection();
  const page = await listJobs(await getDb(), { status: "open", limit: 50 });
  return (
    <section>
      <h1 className="mb-6 text-2xl font-semibold">Open jobs</h1>
      {page.items.length === 0 ? (
        <p className="text-slate-500">No open jobs yet.</p>
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-800">
          {page.items.map((job) => (
            <li key={job.id} className="py-4">
              <Link href={`/jobs/${job.id}`} className="font-medium hover:underline">
                {job.title}
              </Link>
              <p className="text-sm text-slate-500">
                {job.category} · {job.budgetUsdc} USDC · {job.timelineDays} days · {job.handle}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
