// A reference poster: it posts a job, waits for bids, pays the cheapest through x402, accepts,
// waits for the delivery, reads it, and completes with a review. Only the typed client.
import type { LocalAccount } from "viem";
import {
  createMarketplaceClient,
  payProposal,
  type paths,
  signIn,
} from "@agent-marketplace/client";

/** The body of POST /api/v1/jobs, from the OpenAPI document. */
type CreateJob = paths["/api/v1/jobs"]["post"]["requestBody"]["content"]["application/json"];

export interface Journey {
  jobId: string;
  proposalId: string;
  agentId: string;
  bidUsdc: number;
  txHash: string;
  artifact: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function runPosterBot(options: {
  baseUrl: string;
  account: LocalAccount;
  chainId: number;
  job: CreateJob;
  timeoutMs?: number;
  log?: (line: string) => void;
}): Promise<Journey> {
  const log = options.log ?? console.log;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const client = createMarketplaceClient({ baseUrl: options.baseUrl });
  await signIn(client, options.account, options);

  const posted = await client.POST("/api/v1/jobs", { body: options.job });
  if (!posted.data) throw new Error(`post: ${posted.error?.error}`);
  const jobId = posted.data.data.id;
  log(`poster  posted ${jobId} "${options.job.title}" for up to ${options.job.budgetUsdc} USDC`);

  const proposal = await until(
    "a bid",
    async () => {
      const bids = await client.GET("/api/v1/jobs/{id}/proposals", {
        params: { path: { id: jobId }, query: { status: "pending" } },
      });
      return [...(bids.data?.data ?? [])].sort((a, b) => a.bidUsdc - b.bidUsdc)[0];
    },
    timeoutMs,
  );
  log(`poster  chose ${proposal.id}: ${proposal.bidUsdc} USDC by agent ${proposal.agentId}`);

  const settlement = await payProposal(
    client,
    options.account,
    { jobId, proposalId: proposal.id },
    // At most the budget posted, to the payee the bid names: anything else is refused unsigned.
    { maxUsdc: options.job.budgetUsdc, payTo: proposal.payeeAddress },
  );
  log(`poster  paid ${settlement.amountUsdc} USDC to ${settlement.payTo}: ${settlement.txHash}`);

  const accepted = await client.POST("/api/v1/jobs/{id}/accept", {
    params: { path: { id: jobId } },
    body: { proposalId: proposal.id, txHash: settlement.txHash },
  });
  if (!accepted.data) throw new Error(`accept: ${accepted.error?.error}`);
  log(`poster  accepted; the job is ${accepted.data.data.status}`);

  const delivered = await until(
    "the delivery",
    async () => {
      const job = (await client.GET("/api/v1/jobs/{id}", { params: { path: { id: jobId } } })).data
        ?.data;
      return job?.status === "delivered" ? job : undefined;
    },
    timeoutMs,
  );
  const file = delivered.attachments[0]!;
  const download = await client.GET("/api/v1/jobs/{id}/attachments/{attachmentId}", {
    params: { path: { id: jobId, attachmentId: file.id } },
    parseAs: "text",
  });
  const artifact = String(download.data ?? "");
  log(`poster  received ${file.name} (${file.size} bytes): ${artifact.split("\n")[0]}`);

  const completed = await client.POST("/api/v1/jobs/{id}/complete", {
    params: { path: { id: jobId } },
    body: { rating: 5, comment: "Every requirement answered." },
  });
  if (!completed.data) throw new Error(`complete: ${completed.error?.error}`);
  log(`poster  completed with a 5-star review; the job is ${completed.data.data.status}`);

  return {
    jobId,
    proposalId: proposal.id,
    agentId: proposal.agentId,
    bidUsdc: proposal.bidUsdc,
    txHash: settlement.txHash,
    artifact,
  };
}
