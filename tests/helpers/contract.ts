// The cast of the HTTP contract suites (tests/http/{auth,jobs,agents,proposals,accept,reviews,
// deliveries,errors}.test.ts): one marketplace per database kind (local chain, fresh database,
// the production build) with four signed-in wallets, an anonymous client and two agents, and
// the builders those suites share. Rate limits are out of the way (tests/http/rate-limit.test.ts
// checks them on a server of its own).
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, expect } from "vitest";
import type { components } from "@agent-marketplace/client";
import { ApiClient } from "./api";
import type { DbKind } from "./db";
import { payFor, startTestMarket, type TestMarket } from "./market";
import type { RunningServer } from "./server";

export const validJob = {
  title: "Summarise 20 papers",
  description: "Read and summarise the attached papers.",
  category: "research",
  budgetUsdc: 25.5,
  timelineDays: 3,
};

/** A well-formed transaction hash that no settlement has. */
export const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

export const newClient = (server: RunningServer) =>
  new ApiClient(server.url, privateKeyToAccount(generatePrivateKey()));

type Job = components["schemas"]["Job"];
type Proposal = components["schemas"]["Proposal"];

export interface ContractCast {
  market: TestMarket;
  server: RunningServer;
  /** Posts the jobs. */
  poster: ApiClient;
  /** Operates agent `agentId` ("Lens": research, data). */
  operator: ApiClient;
  /** Operates agent `otherAgentId` ("Quill": writing). */
  otherOperator: ApiClient;
  /** Signed in, with no part in the cast's jobs. */
  stranger: ApiClient;
  /** Not signed in. */
  anon: ApiClient;
  agentId: string;
  otherAgentId: string;
  /** A new wallet's client on the server, not signed in. */
  newClient(): ApiClient;
  /** An open job of the poster's with a bid by each agent (20 and 22 USDC). */
  openJobWithBids(): Promise<{ job: Job; bid: Proposal; otherBid: Proposal }>;
  /** The same job paid (x402 on the local chain) and accepted with the first bid. */
  paidJob(): Promise<{ job: Job; bid: Proposal; otherBid: Proposal; txHash: string }>;
}

/**
 * Registers the beforeAll that starts the cast's marketplace on `kind` (and the afterAll that
 * stops it) in the calling suite; the returned object is filled in by that beforeAll.
 */
export function useContractCast(kind: DbKind): ContractCast {
  const cast = {
    newClient: () => newClient(cast.server),
    async openJobWithBids() {
      const { poster, operator, otherOperator, agentId, otherAgentId } = cast;
      const job = (await poster.post("/api/v1/jobs", validJob)).body.data;
      const bid = (
        await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
          agentId,
          bidUsdc: 20,
          etaDays: 2,
          message: "I can do it",
        })
      ).body.data;
      const otherBid = (
        await otherOperator.post(`/api/v1/jobs/${job.id}/proposals`, {
          agentId: otherAgentId,
          bidUsdc: 22,
          etaDays: 3,
          message: "Me too",
        })
      ).body.data;
      return { job, bid, otherBid };
    },
    async paidJob() {
      const { job, bid, otherBid } = await cast.openJobWithBids();
      const txHash = await payFor(cast.market, cast.poster, job.id, bid.id);
      const accepted = await cast.poster.post(`/api/v1/jobs/${job.id}/accept`, {
        proposalId: bid.id,
        txHash,
      });
      expect(accepted.status).toBe(200);
      return { job: accepted.body.data, bid, otherBid, txHash };
    },
  } as ContractCast;

  beforeAll(async () => {
    const market = await startTestMarket(kind, {
      RATE_LIMIT_WRITES_PER_MINUTE: "100000",
      RATE_LIMIT_AUTH_PER_MINUTE: "100000",
    });
    const server = market.server;
    Object.assign(cast, { market, server });
    const [poster, operator, otherOperator, stranger] = (await Promise.all(
      [0, 1, 2, 3].map(() => newClient(server).signIn()),
    )) as [ApiClient, ApiClient, ApiClient, ApiClient];
    const anon = new ApiClient(server.url);
    const agent = await operator.post("/api/v1/agents", {
      name: "Lens",
      categories: ["research", "data"],
    });
    const other = await otherOperator.post("/api/v1/agents", {
      name: "Quill",
      categories: ["writing"],
    });
    Object.assign(cast, {
      poster,
      operator,
      otherOperator,
      stranger,
      anon,
      agentId: agent.body.data.id,
      otherAgentId: other.body.data.id,
    });
  });

  afterAll(async () => {
    await cast.market?.stop();
  });

  return cast;
}
