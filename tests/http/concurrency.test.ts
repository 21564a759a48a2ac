// Race conditions over real HTTP: many identical or conflicting writes fired at once
// against `next start`, on PGlite, on PostgreSQL, and on PostgreSQL with two server
// processes sharing the database (requests alternate between them). Of conflicting
// requests exactly one may win; the others get 409; the data read back through the API
// afterwards is consistent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient, ApiResponse } from "@/tests/helpers/api";
import { type DbKind, TEST_DATABASE_URL } from "@/tests/helpers/db";
import {
  BUSY_TEST_SERVER_ENV,
  type Cast,
  createJob,
  deliveredJob,
  expectStatus,
  jobInProgress,
  listAll,
  makeCast,
  openJobWithProposal,
  paySettlement,
  registerAgent,
  sameSessionOn,
  signedInClient,
  submitProposal,
} from "@/tests/helpers/fixtures";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

const RACERS = 20;

interface Setup {
  name: string;
  kind: DbKind;
  servers: number;
}

const SETUPS: Setup[] = [
  { name: "PGlite, one server", kind: "pglite", servers: 1 },
  ...(TEST_DATABASE_URL
    ? [
        { name: "PostgreSQL, one server", kind: "postgres" as const, servers: 1 },
        {
          name: "PostgreSQL, two servers sharing the database",
          kind: "postgres" as const,
          servers: 2,
        },
      ]
    : []),
];

const statusesOf = (responses: ApiResponse[]) => responses.map((response) => response.status);
const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

/** Every refused racer must carry the error envelope, never a 5xx. */
function expectConflictsWellFormed(responses: ApiResponse[], winners: number[]) {
  for (const response of responses) {
    if (winners.includes(response.status)) continue;
    expect(response.status, JSON.stringify(response.body)).toBe(409);
    expect(response.body).toEqual({ error: expect.any(String), code: expect.any(String) });
  }
}

describe.each(SETUPS)("concurrent writes: $name", ({ kind, servers: serverCount }) => {
  const servers: RunningServer[] = [];
  let chain: TestChain | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  let cast: Cast;
  /** A second operator with two more agents, for jobs with several bids. */
  let rivalOperator: ApiClient;
  let rivalAgents: { id: string }[];

  beforeAll(async () => {
    chain = await startTestChain();
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    const env = { ...database.env, ...BUSY_TEST_SERVER_ENV, CHAIN_RPC_URL: chain.rpcUrl };
    // Two servers with the same env share the database and the session secret.
    for (let i = 0; i < serverCount; i++) servers.push(await startServer(env));
    cast = await makeCast({ chain, server: servers[0]! });
    rivalOperator = await signedInClient(servers[0]!.url);
    rivalAgents = [
      await registerAgent(rivalOperator, "Quill"),
      await registerAgent(rivalOperator, "Forge"),
    ];
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await chain?.stop();
    await cleanup?.();
  });

  /** The client's session on the server racer `i` talks to (alternating with two servers). */
  const on = (client: ApiClient, i: number) =>
    sameSessionOn(client, servers[i % servers.length]!.url);

  /** Fires `n` requests at once: all are started before any is awaited. */
  function race<Request extends (i: number) => Promise<ApiResponse>>(n: number, request: Request) {
    return Promise.all(Array.from({ length: n }, (_, i) => request(i) as ReturnType<Request>));
  }

  it("accepts of the same proposal and hash: one transition, all others 409 or the idempotent 200", async () => {
    const { job, proposal } = await openJobWithProposal(cast);
    const rivals = await Promise.all(
      rivalAgents.map((agent) => submitProposal(rivalOperator, job.id, agent.id, { bidUsdc: 18 })),
    );
    const txHash = await paySettlement(cast, job.id, proposal.id);
    const posters = Array.from({ length: RACERS }, (_, i) => on(cast.poster, i));

    const responses = await race(RACERS, (i) =>
      posters[i]!.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: proposal.id, txHash }),
    );

    const statuses = statusesOf(responses);
    expect(count(statuses, 200), `statuses ${statuses}`).toBeGreaterThanOrEqual(1);
    expectConflictsWellFormed(responses, [200]);
    // A racer that read the job after the winner committed gets the contract's idempotent
    // retry answer (200, the job unchanged); every 200 therefore shows the same job.
    const wins = responses.filter((response) => response.status === 200);
    for (const win of wins) expect(win.body.data).toEqual(wins[0]!.body.data);
    expect(wins[0]!.body.data).toMatchObject({
      id: job.id,
      status: "in_progress",
      acceptedProposalId: proposal.id,
      assignedAgentId: cast.agent.id,
      paymentTxHash: txHash,
    });

    const after = expectStatus(await cast.poster.get(`/api/v1/jobs/${job.id}`), 200).data;
    expect(after).toEqual(wins[0]!.body.data);
    const proposals = await listAll(cast.poster, `/api/v1/jobs/${job.id}/proposals?status=all`);
    expect(proposals).toHaveLength(3);
    expect(proposals.filter((p) => p.status === "accepted").map((p) => p.id)).toEqual([
      proposal.id,
    ]);
    expect(
      proposals
        .filter((p) => p.status === "rejected")
        .map((p) => p.id)
        .sort(),
    ).toEqual(rivals.map((p) => p.id).sort());
    // The active list (default) keeps only the accepted proposal.
    const active = expectStatus(
      await cast.poster.get(`/api/v1/jobs/${job.id}/proposals`),
      200,
    ).data;
    expect(active.map((p: { id: string }) => p.id)).toEqual([proposal.id]);
  });

  it("accepts racing rejects of a paid proposal: the accept wins, every reject is refused", async () => {
    const { job, proposal } = await openJobWithProposal(cast);
    const txHash = await paySettlement(cast, job.id, proposal.id);
    const posters = Array.from({ length: RACERS }, (_, i) => on(cast.poster, i));

    const responses = await race(RACERS, (i) =>
      i % 2 === 0
        ? posters[i]!.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: proposal.id, txHash })
        : posters[i]!.post(`/api/v1/jobs/${job.id}/proposals/${proposal.id}/reject`),
    );

    const accepts = responses.filter((_, i) => i % 2 === 0);
    const rejects = responses.filter((_, i) => i % 2 === 1);
    expectConflictsWellFormed(responses, [200]);
    // A paid proposal is never rejected (contract: reject refuses a live settlement).
    expect(count(statusesOf(rejects), 200), `statuses ${statusesOf(responses)}`).toBe(0);
    expect(count(statusesOf(accepts), 200), `statuses ${statusesOf(responses)}`).toBeGreaterThan(0);
    const after = expectStatus(await cast.poster.get(`/api/v1/jobs/${job.id}`), 200).data;
    const [stored] = await listAll(cast.poster, `/api/v1/jobs/${job.id}/proposals?status=all`);
    expect(after).toMatchObject({ status: "in_progress", acceptedProposalId: proposal.id });
    expect(stored).toMatchObject({ id: proposal.id, status: "accepted" });
  });

  it("rejects of the same pending proposal: one 200, the rest 409", async () => {
    const { job, proposal } = await openJobWithProposal(cast);
    const rival = await submitProposal(rivalOperator, job.id, rivalAgents[0]!.id);
    const posters = Array.from({ length: RACERS }, (_, i) => on(cast.poster, i));

    const responses = await race(RACERS, (i) =>
      posters[i]!.post(`/api/v1/jobs/${job.id}/proposals/${proposal.id}/reject`),
    );

    const statuses = statusesOf(responses);
    expect(count(statuses, 200), `statuses ${statuses}`).toBe(1);
    expectConflictsWellFormed(responses, [200]);
    expect(responses.find((r) => r.status === 200)!.body.data).toMatchObject({
      id: proposal.id,
      status: "rejected",
    });
    const all = await listAll(cast.poster, `/api/v1/jobs/${job.id}/proposals?status=all`);
    expect(all.map((p) => [p.id, p.status])).toEqual([
      [proposal.id, "rejected"],
      [rival.id, "pending"],
    ]);
    const after = expectStatus(await cast.poster.get(`/api/v1/jobs/${job.id}`), 200).data;
    expect(after.status).toBe("open");
  });

  it("reviews of the same job by the poster: one 201, the rest 409, one review stored", async () => {
    const { job } = await jobInProgress(cast);
    const before = await listAll(cast.poster, `/api/v1/reviews?agentId=${cast.agent.id}`);
    const posters = Array.from({ length: RACERS }, (_, i) => on(cast.poster, i));

    const responses = await race(RACERS, (i) =>
      posters[i]!.post("/api/v1/reviews", {
        agentId: cast.agent.id,
        jobId: job.id,
        rating: 1 + (i % 5),
        comment: `racer ${i}`,
      }),
    );

    const statuses = statusesOf(responses);
    expect(count(statuses, 201), `statuses ${statuses}`).toBe(1);
    expectConflictsWellFormed(responses, [201]);
    const winner = responses.find((r) => r.status === 201)!.body.data;
    const after = await listAll(cast.poster, `/api/v1/reviews?agentId=${cast.agent.id}`);
    expect(after).toHaveLength(before.length + 1);
    expect(after.filter((review) => review.jobId === job.id)).toEqual([winner]);
  });

  it("deliver racing a review: deliver wins, the review is stored only when it answered 201", async () => {
    const jobs = await Promise.all(Array.from({ length: 4 }, () => jobInProgress(cast)));
    const operators = [on(cast.operator, 0), on(cast.operator, 1)];
    const posters = [on(cast.poster, 1), on(cast.poster, 0)];

    const outcomes = await Promise.all(
      jobs.map(({ job }, n) =>
        race(2, (i) =>
          i === 0
            ? operators[n % 2]!.post(`/api/v1/jobs/${job.id}/deliver`, {})
            : posters[n % 2]!.post("/api/v1/reviews", {
                agentId: cast.agent.id,
                jobId: job.id,
                rating: 4,
                comment: "racing the delivery",
              }),
        ),
      ),
    );

    const reviews = await listAll(cast.poster, `/api/v1/reviews?agentId=${cast.agent.id}`);
    for (const [n, [deliver, review]] of outcomes.entries()) {
      const jobId = jobs[n]!.job.id;
      expect(deliver!.status, JSON.stringify(deliver!.body)).toBe(200);
      // Racer 0 delivered (racer 1 reviewed): its answer is a job's.
      expect((deliver!.body.data as { status: string }).status).toBe("delivered");
      expect([201, 409], JSON.stringify(review!.body)).toContain(review!.status);
      const stored = reviews.filter((r) => r.jobId === jobId);
      expect(stored).toHaveLength(review!.status === 201 ? 1 : 0);
      const after = expectStatus(await cast.poster.get(`/api/v1/jobs/${jobId}`), 200).data;
      expect(after.status).toBe("delivered");
    }
  });

  it("deliveries of the same job: one 200, the rest 409", async () => {
    const { job } = await jobInProgress(cast);
    const operators = Array.from({ length: RACERS }, (_, i) => on(cast.operator, i));

    const responses = await race(RACERS, (i) =>
      operators[i]!.post(`/api/v1/jobs/${job.id}/deliver`, {}),
    );

    const statuses = statusesOf(responses);
    expect(count(statuses, 200), `statuses ${statuses}`).toBe(1);
    expectConflictsWellFormed(responses, [200]);
    const after = expectStatus(await cast.poster.get(`/api/v1/jobs/${job.id}`), 200).data;
    expect(after).toEqual(responses.find((r) => r.status === 200)!.body.data);
    expect(after.status).toBe("delivered");
  });

  it("completions with a rating: one 200, the rest 409, one review created", async () => {
    const { job } = await deliveredJob(cast);
    const before = await listAll(cast.poster, `/api/v1/reviews?agentId=${cast.agent.id}`);
    const posters = Array.from({ length: RACERS }, (_, i) => on(cast.poster, i));

    const responses = await race(RACERS, (i) =>
      posters[i]!.post(`/api/v1/jobs/${job.id}/complete`, {
        rating: 1 + (i % 5),
        comment: `c${i}`,
      }),
    );

    const statuses = statusesOf(responses);
    expect(count(statuses, 200), `statuses ${statuses}`).toBe(1);
    expectConflictsWellFormed(responses, [200]);
    const winnerIndex = responses.findIndex((r) => r.status === 200);
    const after = expectStatus(await cast.poster.get(`/api/v1/jobs/${job.id}`), 200).data;
    expect(after).toMatchObject({ status: "completed", posterVerified: true });
    const reviews = await listAll(cast.poster, `/api/v1/reviews?agentId=${cast.agent.id}`);
    expect(reviews).toHaveLength(before.length + 1);
    // The one review is the winner's rating and comment.
    expect(reviews.filter((r) => r.jobId === job.id)).toEqual([
      expect.objectContaining({ rating: 1 + (winnerIndex % 5), comment: `c${winnerIndex}` }),
    ]);
  });

  it("the same agent bidding twice at once: one 201, the rest 409", async () => {
    const job = await createJob(cast.poster);
    const operators = Array.from({ length: RACERS }, (_, i) => on(cast.operator, i));

    const responses = await race(RACERS, (i) =>
      operators[i]!.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId: cast.agent.id,
        bidUsdc: 10 + i,
        etaDays: 2,
        message: `bid ${i}`,
      }),
    );

    const statuses = statusesOf(responses);
    expect(count(statuses, 201), `statuses ${statuses}`).toBe(1);
    expectConflictsWellFormed(responses, [201]);
    const all = await listAll(cast.poster, `/api/v1/jobs/${job.id}/proposals?status=all`);
    expect(all).toEqual([responses.find((r) => r.status === 201)!.body.data]);
  });

  it("new bids racing an accept: no proposal is left pending on the accepted job", async () => {
    const { job, proposal } = await openJobWithProposal(cast);
    const txHash = await paySettlement(cast, job.id, proposal.id);
    // Fresh agents, each may bid once.
    const bidders = await Promise.all(
      Array.from({ length: RACERS - 1 }, (_, i) => registerAgent(rivalOperator, `Bidder ${i}`)),
    );
    const rivals = Array.from({ length: RACERS }, (_, i) => on(rivalOperator, i));
    const poster = on(cast.poster, 0);

    const responses = await race(RACERS, (i) =>
      i === Math.floor(RACERS / 2)
        ? poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: proposal.id, txHash })
        : rivals[i]!.post(`/api/v1/jobs/${job.id}/proposals`, {
            agentId: bidders[i > RACERS / 2 ? i - 1 : i]!.id,
            bidUsdc: 5,
            etaDays: 1,
            message: "late bid",
          }),
    );

    const accept = responses[Math.floor(RACERS / 2)]!;
    expect(accept.status, JSON.stringify(accept.body)).toBe(200);
    const bids = responses.filter((_, i) => i !== Math.floor(RACERS / 2));
    expectConflictsWellFormed(bids, [201]);
    const created = bids.filter((r) => r.status === 201).map((r) => r.body.data.id);
    const all = await listAll(cast.poster, `/api/v1/jobs/${job.id}/proposals?status=all`);
    expect(all).toHaveLength(1 + created.length);
    expect(all.filter((p) => p.status === "pending")).toEqual([]);
    expect(all.filter((p) => p.status === "accepted").map((p) => p.id)).toEqual([proposal.id]);
    // A bid that got in before the accept was rejected by it.
    expect(
      all
        .filter((p) => p.status === "rejected")
        .map((p) => p.id)
        .sort(),
    ).toEqual(created.sort());
  });
});
