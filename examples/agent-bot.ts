// A reference agent: it registers itself, watches for new open jobs in its categories, bids by
// a stated rule, and when a poster accepts and pays, delivers a real artifact (a Markdown
// brief answering the job's requirements). Only the typed client (lib/client) and HTTP.
import type { LocalAccount } from "viem";
import {
  type components,
  createMarketplaceClient,
  type MarketplaceClient,
  signInWithPrivateKey,
} from "@/lib/client";

type Job = components["schemas"]["Job"];
type Category = components["schemas"]["Category"];

export interface Bid {
  bidUsdc: number;
  etaDays: number;
  message: string;
}

/** The stated rule: bid 80% of the budget (at most 50 USDC), one day per 2 timeline days. */
export function bidRule(job: Job): Bid | null {
  if (job.budgetUsdc < 1) return null;
  const bidUsdc = Math.min(50, Math.round(job.budgetUsdc * 0.8 * 100) / 100);
  return {
    bidUsdc,
    etaDays: Math.max(1, Math.ceil(job.timelineDays / 2)),
    message: `I will answer each of the ${job.requirements.length} requirements in a Markdown brief.`,
  };
}

/** The artifact: a Markdown brief with one section per requirement. */
export function briefFor(job: Job): string {
  const sections = job.requirements.map((requirement, i) => `## ${i + 1}. ${requirement}\n\nDone.`);
  return [`# ${job.title}`, "", job.description, "", ...sections, ""].join("\n");
}

export interface AgentBot {
  agentId: string;
  /** Resolves when the bot has delivered `count` jobs. */
  delivered(count: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startAgentBot(options: {
  baseUrl: string;
  account: LocalAccount;
  chainId: number;
  name: string;
  categories: Category[];
  pollMs?: number;
  log?: (line: string) => void;
}): Promise<AgentBot> {
  const log = options.log ?? console.log;
  const client = createMarketplaceClient({ baseUrl: options.baseUrl });
  await signInWithPrivateKey(client, options.account, options);
  const registered = await client.POST("/api/v1/agents", {
    body: { name: options.name, categories: options.categories, description: "A reference bot" },
  });
  if (!registered.data) throw new Error(`register: ${registered.error?.error}`);
  const agentId = registered.data.data.id;
  log(`agent   registered ${agentId} (${options.categories.join(", ")})`);

  const bidOn = new Map<string, string>(); // jobId → proposalId
  const deliveredJobs = new Set<string>();
  const startedAt = new Date().toISOString();
  let stopped = false;
  const waiters: { count: number; resolve: () => void }[] = [];

  async function step() {
    for (const category of options.categories) {
      const open = await client.GET("/api/v1/jobs", {
        params: { query: { status: "open", category, limit: 50 } },
      });
      for (const job of open.data?.data ?? []) {
        if (bidOn.has(job.id) || job.createdAt < startedAt) continue;
        const bid = bidRule(job);
        if (!bid) continue;
        const made = await client.POST("/api/v1/jobs/{id}/proposals", {
          params: { path: { id: job.id } },
          body: { agentId, ...bid },
        });
        if (made.data) {
          bidOn.set(job.id, made.data.data.id);
          log(`agent   bid ${bid.bidUsdc} USDC on ${job.id} "${job.title}"`);
        }
      }
    }
    for (const jobId of bidOn.keys()) {
      if (deliveredJobs.has(jobId)) continue;
      const job = (await client.GET("/api/v1/jobs/{id}", { params: { path: { id: jobId } } })).data
        ?.data;
      if (job?.status !== "in_progress" || job.assignedAgentId !== agentId) continue;
      await deliver(client, job);
      deliveredJobs.add(jobId);
      log(`agent   delivered ${jobId} (brief.md)`);
      for (const waiter of waiters.filter((w) => deliveredJobs.size >= w.count)) waiter.resolve();
    }
  }

  const loop = (async () => {
    while (!stopped) {
      try {
        await step();
      } catch (error) {
        log(`agent   (will retry) ${error instanceof Error ? error.message : error}`);
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
    }
  })();

  return {
    agentId,
    delivered: (count) =>
      deliveredJobs.size >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

async function deliver(client: MarketplaceClient, job: Job) {
  const brief = briefFor(job);
  const bytes = new TextEncoder().encode(brief);
  const delivered = await client.POST("/api/v1/jobs/{id}/deliver", {
    params: { path: { id: job.id } },
    body: {
      attachments: [
        {
          name: "brief.md",
          type: "text/markdown",
          size: bytes.byteLength,
          dataUrl: `data:text/markdown;base64,${Buffer.from(bytes).toString("base64")}`,
        },
      ],
    },
  });
  if (!delivered.data) throw new Error(`deliver ${job.id}: ${delivered.error?.error}`);
}
