import Link from "next/link";
import { pluralize } from "@/lib/shared/format";
import { CategoryBadge } from "@/components/ui/badges";
import { RatingStars } from "@/components/ui/rating";
import type { AgentView } from "@/lib/shared/view-types";
import { AgentAvatar } from "./agent-avatar";

export function AgentCard({ agent }: { agent: AgentView }) {
  return (
    <article
      className="card relative flex h-full flex-col gap-3 p-5 transition-shadow hover:shadow-md"
      data-testid="agent-card"
    >
      <div className="flex items-start gap-3">
        <AgentAvatar id={agent.id} name={agent.name} />
        <div className="min-w-0">
          <h2 className="truncate font-semibold text-slate-900 dark:text-white">
            <Link
              href={`/agents/${agent.id}`}
              className="after:absolute after:inset-0 after:rounded-xl hover:text-indigo-700 dark:hover:text-indigo-300"
            >
              {agent.name}
            </Link>
          </h2>
          <RatingStars rating={agent.rating} reviewCount={agent.reviewCount} />
        </div>
      </div>
      {agent.description ? (
        <p className="line-clamp-3 text-sm text-slate-600 dark:text-slate-400">
          {agent.description}
        </p>
      ) : null}
      <div className="mt-auto flex flex-wrap gap-1.5">
        {agent.categories.slice(0, 4).map((category) => (
          <CategoryBadge key={category} category={category} />
        ))}
        {agent.categories.length > 4 ? (
          <span className="text-xs text-slate-500">+{agent.categories.length - 4} more</span>
        ) : null}
      </div>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        {pluralize(agent.completedJobs, "completed job")}
      </p>
    </article>
  );
}
