// Small builders for HTTP tests that need many jobs in given states: everything goes
// through the public API, payments included (real x402 settlements on the local chain), so
// the server under test writes every row itself.
import { randomBytes } from "node:crypto";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ApiClient, type ApiResponse } from "./api";
import type { ResponseBody } from "./api-paths";
import { payFor, type PaymentTarget } from "./market";

/** Server env for tests that fire many writes: rate limits out of the way. */
export const BUSY_TEST_SERVER_ENV = {
  RATE_LIMIT_WRITES_PER_MINUTE: "100000",
  RATE_LIMIT_AUTH_PER_MINUTE: "100000",
} as const;

/** A new random wallet signed in on `baseUrl`. */
export function signedInClient(baseUrl: string): Promise<ApiClient> {
  return new ApiClient(baseUrl, privateKeyToAccount(generatePrivateKey())).signIn();
}

/** The same wallet and session cookie, talking to another server (they share SESSION_SECRET). */
export function sameSessionOn(client: ApiClient, baseUrl: string): ApiClient {
  const twin = new ApiClient(baseUrl, client.account);
  twin.cookie = client.cookie;
  return twin;
}

export const randomTxHash = () => `0x${randomBytes(32).toString("hex")}` as `0x${string}`;

/** Throws with the response body when the status is not the expected one. */
export function expectStatus<T>(response: ApiResponse<T>, status: number, what = ""): T {
  if (response.status !== status) {
    throw new Error(
      `${what ? `${what}: ` : ""}expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`,
    );
  }
  return response.body;
}

export const validJobBody = (overrides: Record<string, unknown> = {}) => ({
  title: "Summarise 20 papers",
  description: "Read and summarise the attached papers.",
  category: "research",
  budgetUsdc: 25.5,
  timelineDays: 3,
  ...overrides,
});

export async function createJob(poster: ApiClient, overrides: Record<string, unknown> = {}) {
  return expectStatus(await poster.post("/api/v1/jobs", validJobBody(overrides)), 201, "create job")
    .data;
}

export async function registerAgent(operator: ApiClient, name = "Agent") {
  return expectStatus(
    await operator.post("/api/v1/agents", { name, categories: ["research"] }),
    201,
    "register agent",
  ).data;
}

export async function submitProposal(
  operator: ApiClient,
  jobId: string,
  agentId: string,
  overrides: Record<string, unknown> = {},
) {
  return expectStatus(
    await operator.post(`/api/v1/jobs/${jobId}/proposals`, {
      agentId,
      bidUsdc: 20,
      etaDays: 2,
      message: "I can do it",
      ...overrides,
    }),
    201,
    "submit proposal",
  ).data;
}

/** Poster, operator and agent ready to walk jobs through the lifecycle on `market`. */
export interface Cast {
  market: PaymentTarget;
  poster: ApiClient;
  operator: ApiClient;
  agent: { id: string };
}

export async function makeCast(market: PaymentTarget): Promise<Cast> {
  const baseUrl = market.server.url;
  const [poster, operator] = await Promise.all([signedInClient(baseUrl), signedInClient(baseUrl)]);
  const agent = await registerAgent(operator, "Lens");
  return { market, poster, operator, agent };
}

/** The cast's poster pays the proposal for real (x402 on the local chain); returns the hash. */
export function paySettlement(cast: Cast, jobId: string, proposalId: string) {
  return payFor(cast.market, cast.poster, jobId, proposalId);
}

/** An open job with one pending proposal by the cast's agent. */
export async function openJobWithProposal(cast: Cast) {
  const job = await createJob(cast.poster);
  const proposal = await submitProposal(cast.operator, job.id, cast.agent.id);
  return { job, proposal };
}

/** A paid job in progress, assigned to the cast's agent. */
export async function jobInProgress(cast: Cast) {
  const { job, proposal } = await openJobWithProposal(cast);
  const txHash = await paySettlement(cast, job.id, proposal.id);
  const accepted = expectStatus(
    await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: proposal.id, txHash }),
    200,
    "accept",
  ).data;
  return { job: accepted, proposal, txHash };
}

/** A delivered job, waiting for the poster's completion. */
export async function deliveredJob(cast: Cast) {
  const { job, proposal, txHash } = await jobInProgress(cast);
  const delivered = expectStatus(
    await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`, {}),
    200,
    "deliver",
  ).data;
  return { job: delivered, proposal, txHash };
}

/** An item of the list `GET path` answers (`unknown` for a path the document does not have). */
export type ListItem<P extends string> =
  ResponseBody<"GET", P> extends { data: (infer Item)[] } ? Item : unknown;

/** Every item of a paged list endpoint (`limit=100`, following `meta.nextCursor`). */
export async function listAll<P extends string>(
  client: ApiClient,
  path: P,
): Promise<ListItem<P>[]> {
  const items: ListItem<P>[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const separator = path.includes("?") ? "&" : "?";
    const url: string = `${path}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    // `path` with a page's query: the same list, of the same items.
    const body = expectStatus(await client.get(url), 200, `list ${path}`) as {
      data: ListItem<P>[];
      meta: { nextCursor: string | null };
    };
    items.push(...body.data);
    cursor = body.meta.nextCursor;
    if (!cursor) return items;
  }
  throw new Error(`list ${path} did not end after 1000 pages`);
}
