// The lifecycle figure of `npm run bench`: create → propose → settle → accept → deliver →
// complete on the local chain, one step after the other, each step's server-side time beside
// what it waited for: its database round-trips and its JSON-RPC calls to the chain (the
// server's Server-Timing header in BENCHMARK_MODE, lib/platform/server-timing.ts, read by
// tools/bench-timing.ts). What is left is the
// server's own overhead: framework, validation, serialization, signature checks.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { mintTestUsdc } from "@/dev/local-chain";
import { ApiClient } from "@/tests/helpers/api";
import { fetchChallenge, signPaymentHeader } from "@/tests/helpers/x402";
import { serverTiming, type Timing } from "./bench-timing";

export const STEPS = ["create", "propose", "settle", "accept", "deliver", "complete"] as const;
export type Step = (typeof STEPS)[number];

function expectOk(step: Step, status: number, expected: number, body: unknown) {
  if (status !== expected) throw new Error(`${step}: ${status} ${JSON.stringify(body)}`);
}

/** One job through its whole life; the timing of each step. */
async function oneLifecycle(baseUrl: string, rpcUrl: string): Promise<Record<Step, Timing>> {
  const payer = privateKeyToAccount(generatePrivateKey());
  const [poster, operator] = await Promise.all([
    new ApiClient(baseUrl, payer).signIn(),
    new ApiClient(baseUrl, privateKeyToAccount(generatePrivateKey())).signIn(),
  ]);
  await mintTestUsdc(rpcUrl, payer.address, 50_000_000n);
  const agent = await operator.post("/api/v1/agents", { name: "Bench", categories: ["data"] });
  expectOk("propose", agent.status, 201, agent.body);
  const timings = {} as Record<Step, Timing>;

  const created = await poster.post("/api/v1/jobs", {
    title: "Benchmark lifecycle",
    description: "One job through its whole life.",
    category: "data",
    budgetUsdc: 30,
    timelineDays: 2,
  });
  expectOk("create", created.status, 201, created.body);
  timings.create = serverTiming(created.headers, "create");
  const jobId = created.body.data.id as string;

  const bid = await operator.post(`/api/v1/jobs/${jobId}/proposals`, {
    agentId: agent.body.data.id,
    bidUsdc: 25,
    etaDays: 1,
    message: "On it",
  });
  expectOk("propose", bid.status, 201, bid.body);
  timings.propose = serverTiming(bid.headers, "propose");
  const proposalId = bid.body.data.id as string;

  const settleUrl = `${baseUrl}/api/jobs/${jobId}/settle?proposalId=${proposalId}`;
  const challenge = await fetchChallenge(settleUrl);
  expectOk("settle", challenge.status, 402, challenge.body);
  const paid = await fetch(settleUrl, {
    method: "POST",
    headers: { "PAYMENT-SIGNATURE": await signPaymentHeader(payer, challenge.paymentRequired) },
  });
  const settled = await paid.json();
  expectOk("settle", paid.status, 200, settled);
  timings.settle = serverTiming(paid.headers, "settle");

  const steps: [Step, ApiClient, string, unknown][] = [
    ["accept", poster, "accept", { proposalId, txHash: settled.data.txHash }],
    ["deliver", operator, "deliver", {}],
    ["complete", poster, "complete", { rating: 5, comment: "Clear and on time" }],
  ];
  for (const [step, client, path, body] of steps) {
    const answer = await client.post(`/api/v1/jobs/${jobId}/${path}`, body);
    expectOk(step, answer.status, 200, answer.body);
    timings[step] = serverTiming(answer.headers, step);
  }
  return timings;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** `runs` lifecycles one after the other (the first warms up and is left out); per step, medians. */
export async function measureLifecycles(
  baseUrl: string,
  rpcUrl: string,
  runs: number,
): Promise<Record<Step, Timing>> {
  await oneLifecycle(baseUrl, rpcUrl);
  const all: Record<Step, Timing>[] = [];
  for (let run = 0; run < runs; run++) all.push(await oneLifecycle(baseUrl, rpcUrl));
  const result = {} as Record<Step, Timing>;
  for (const step of STEPS) {
    const of = (key: keyof Timing) => median(all.map((timings) => timings[step][key]));
    result[step] = {
      total: of("total"),
      db: of("db"),
      dbCalls: of("dbCalls"),
      chain: of("chain"),
      chainCalls: of("chainCalls"),
    };
  }
  return result;
}
