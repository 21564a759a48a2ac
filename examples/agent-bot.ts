// A reference agent: it registers itself, follows the event feed (long-poll) for new jobs in
// its categories, bids by a stated rule, and when a poster accepts and pays, delivers a real artifact (a Markdown
// brief answering the job's requirements). Only the typed client (@agent-marketplace/client) and HTTP.
import type { LocalAccount } from "viem";
import {
  type components,
  createMarketplaceClient,
  type MarketplaceClient,
  signIn,
} from "@agent-marketplace/client";

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
  /** Wait before retrying after an error. */
  retryMs?: number;
  log?: (line: string) => void;
}): Promise<AgentBot> {
  const log = options.log ?? console.log;
  const client = createMarketplaceClient({ baseUrl: options.baseUrl });
  await signIn(client, options.account, options);
  const registered = await client.POST("/api/v1/agents", {
    body: { name: options.name, categories: options.categories, description: "A reference bot" },
  });
  if (!registered.data) throw new Error(`register: ${registered.error?.error}`);
  const agentId = registered.data.data.id;
  log(`agent   registered ${agentId} (${options.categories.join(", ")})`);

  let delivered = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const stopping = new AbortController();

  async function bidOn(jobId: string) {
    const job = (await client.GET("/api/v1/jobs/{id}", { params: { path: { id: jobId } } })).data
      ?.data;
    const bid = job && job.status === "open" ? bidRule(job) : null;
    if (!job || !bid) return;
    const made = await client.POST("/api/v1/jobs/{id}/proposals", {
      params: { path: { id: job.id } },
      body: { agentId, ...bid },
    });
    if (made.data) log(`agent   bid ${bid.bidUsdc} USDC on ${job.id} "${job.title}"`);
    else log(`agent   could not bid on ${job.id}: ${made.error?.error}`);
  }

  async function deliverAccepted(jobId: string) {
    const job = (await client.GET("/api/v1/jobs/{id}", { params: { path: { id: jobId } } })).data
      ?.data;
    if (job?.status !== "in_progress" || job.assignedAgentId !== agentId) return;
    await deliver(client, job);
    delivered += 1;
    log(`agent   delivered ${jobId} (brief.md)`);
    for (const waiter of waiters.filter((w) => delivered >= w.count)) waiter.resolve();
  }

  // The event feed, long-polled from now on: new jobs to bid on, and our bids accepted (paid).
  // "From now on", pinned before start returns, so nothing posted afterwards is missed.
  const head = await client.GET("/api/v1/events", { params: { query: { after: "latest" } } });
  if (!head.data) throw new Error(`event feed: ${head.error?.error}`);
  let after = head.data.meta.nextCursor;
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      try {
        const page = await client.GET("/api/v1/events", {
          params: { query: { after, types: "job.created,job.accepted", wait: 20 } },
          signal: stopping.signal,
        });
        if (!page.data) throw new Error(page.error?.error ?? `HTTP ${page.response.status}`);
        for (const event of page.data.data) {
          if (event.type === "job.created" && options.categories.includes(event.data.category)) {
            await bidOn(event.data.jobId);
          } else if (event.type === "job.accepted" && event.data.agentId === agentId) {
            await deliverAccepted(event.data.jobId);
          }
        }
        after = page.data.meta.nextCursor;
      } catch (error) {
        if (stopping.signal.aborted) break;
        log(`agent   (will retry) ${error instanceof Error ? error.message : error}`);
        await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 1_000));
      }
    }
  })();

  return {
    agentId,
    delivered: (count) =>
      delivered >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    async stop() {
      stopping.abort();
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
