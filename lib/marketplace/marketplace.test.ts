// Every write of the marketplace, in-process on PGlite with the real local chain and the
// in-process facilitator (tests/http checks the same over HTTP). Who may do what, in which
// state, reads like the spec's tables: 403 for the wrong actor, then 409 for the wrong state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalAccount } from "viem";
import { DomainError } from "@/lib/errors";
import { deliverSchema } from "@/lib/shared/schemas/jobs";
import {
  agentInput,
  type InProcessMarket,
  jobInput,
  jobWithBid,
  newWallet,
  proposalInput,
  settle,
  signedPayment,
  startInProcessMarket,
} from "@/tests/helpers/in-process";
import { tokenReader } from "@/tests/helpers/x402";
import { registerAgent } from "./agents";
import { createJob, getJob } from "./jobs";
import { listProposals, rejectProposal, submitProposal } from "./proposals";
import { listReviewsForJob, postReview } from "./reviews";
import { acceptProposal, completeJob, deliverJob } from "./transitions";

let market: InProcessMarket;
let poster: LocalAccount;
let operator: LocalAccount;
let stranger: LocalAccount;

beforeAll(async () => {
  market = await startInProcessMarket();
  [poster, operator, stranger] = [newWallet(), newWallet(), newWallet()];
});
afterAll(() => market?.stop());

/** Runs `write` and returns the DomainError's status and message it fails with. */
async function refusal(write: Promise<unknown>) {
  const error = await write.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${error}`);
  return { status: error.status, message: error.message };
}

/** An open job with a bid, paid and accepted: in progress. */
async function jobInProgress() {
  const { job, agent, proposal } = await jobWithBid(market.db, poster.address, operator.address);
  const target = { jobId: job.id, proposalId: proposal.id };
  const txHash = await settle(market, target, await signedPayment(market, poster, target));
  const accepted = await acceptProposal(market.db, poster.address, job.id, {
    proposalId: proposal.id,
    txHash,
  });
  return { job: accepted, agent, proposal, txHash };
}

describe("create job and register agent", () => {
  it("creates an open job in atomic units inside, USDC at the edge, with a default handle", async () => {
    const job = await createJob(market.db, poster.address, jobInput({ budgetUsdc: 25.5 }));
    expect(job).toMatchObject({
      status: "open",
      budgetUsdc: 25.5,
      posterAddress: poster.address,
      handle: `@${poster.address.slice(2, 8)}`,
      assignedAgentId: null,
    });
    const row = await market.db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.budgetAtomic).toBe(25_500_000n);
    expect(await market.db.wallet.findUnique({ where: { address: poster.address } })).toMatchObject(
      { verified: false },
    );
  });

  it("registers an agent paid at its operator's wallet unless another payee is named", async () => {
    const own = await registerAgent(market.db, operator.address, agentInput());
    expect(own).toMatchObject({
      walletAddress: operator.address,
      operatorAddress: operator.address,
    });
    const payee = newWallet().address;
    const other = await registerAgent(
      market.db,
      operator.address,
      agentInput({ walletAddress: payee }),
    );
    expect(other).toMatchObject({ walletAddress: payee, operatorAddress: operator.address });
  });
});

describe("propose", () => {
  it("takes a bid from the agent's operator or its payee wallet, one active bid per agent", async () => {
    const job = await createJob(market.db, poster.address, jobInput());
    const payee = newWallet();
    const agent = await registerAgent(
      market.db,
      operator.address,
      agentInput({ walletAddress: payee.address }),
    );
    const bid = await submitProposal(market.db, payee.address, job.id, proposalInput(agent.id));
    expect(bid).toMatchObject({ status: "pending", bidUsdc: 7.25, agentId: agent.id });
    expect(
      await refusal(submitProposal(market.db, operator.address, job.id, proposalInput(agent.id))),
    ).toEqual({ status: 409, message: "this agent already has an active proposal on this job" });
  });

  it("refuses a stranger's agent (403), the poster's own job (403) and a job not open (409)", async () => {
    const { job } = await jobInProgress();
    const open = await createJob(market.db, poster.address, jobInput());
    const agent = await registerAgent(market.db, operator.address, agentInput());
    const posters = await registerAgent(market.db, poster.address, agentInput());
    expect(
      await refusal(submitProposal(market.db, stranger.address, open.id, proposalInput(agent.id))),
    ).toEqual({ status: 403, message: "you can only bid with an agent you operate" });
    expect(
      await refusal(submitProposal(market.db, poster.address, open.id, proposalInput(posters.id))),
    ).toEqual({ status: 403, message: "you cannot bid on your own job" });
    expect(
      await refusal(submitProposal(market.db, operator.address, job.id, proposalInput(agent.id))),
    ).toEqual({
      status: 409,
      message: "cannot submit a proposal: the job is in progress, it must be open",
    });
  });
});

describe("reject", () => {
  it("lets the poster reject a pending bid once; no one else may", async () => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    expect(await refusal(rejectProposal(market.db, operator.address, job.id, proposal.id))).toEqual(
      { status: 403, message: "only the job's poster can reject proposals" },
    );
    const rejected = await rejectProposal(market.db, poster.address, job.id, proposal.id);
    expect(rejected.status).toBe("rejected");
    expect(await refusal(rejectProposal(market.db, poster.address, job.id, proposal.id))).toEqual({
      status: 409,
      message: "the proposal is not pending",
    });
  });

  it("refuses to reject a paid proposal: it is accepted with its hash instead", async () => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    const target = { jobId: job.id, proposalId: proposal.id };
    await settle(market, target, await signedPayment(market, poster, target));
    expect(await refusal(rejectProposal(market.db, poster.address, job.id, proposal.id))).toEqual({
      status: 409,
      message: "this proposal is paid; accept it with the payment's txHash instead of rejecting it",
    });
  });
});

describe("accept", () => {
  it("moves the job to in progress with the settlement's hash and rejects the other bids", async () => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    const rival = await registerAgent(market.db, stranger.address, agentInput());
    const other = await submitProposal(
      market.db,
      stranger.address,
      job.id,
      proposalInput(rival.id),
    );
    const target = { jobId: job.id, proposalId: proposal.id };
    const before = await tokenReader(market.chain.rpcUrl).balanceOf(operator.address);
    const txHash = await settle(market, target, await signedPayment(market, poster, target));
    expect((await tokenReader(market.chain.rpcUrl).balanceOf(operator.address)) - before).toBe(
      7_250_000n,
    );

    const accepted = await acceptProposal(market.db, poster.address, job.id, {
      proposalId: proposal.id,
      txHash,
    });
    expect(accepted).toMatchObject({
      status: "in_progress",
      acceptedProposalId: proposal.id,
      paymentTxHash: txHash,
    });
    const bids = await listProposals(market.db, job.id, { status: "all", limit: 50 });
    expect(Object.fromEntries(bids.items.map((bid) => [bid.id, bid.status]))).toEqual({
      [proposal.id]: "accepted",
      [other.id]: "rejected",
    });
    // The same accept again answers the job unchanged; the poster's only.
    const again = await acceptProposal(market.db, poster.address, job.id, {
      proposalId: proposal.id,
      txHash,
    });
    expect(again.updatedAt).toEqual(accepted.updatedAt);
    expect(
      (
        await refusal(
          acceptProposal(market.db, stranger.address, job.id, { proposalId: proposal.id, txHash }),
        )
      ).status,
    ).toBe(403);
  });

  it("refuses a hash that is not this job's settlement (402) and a stranger (403 before 402)", async () => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    const paid = await jobInProgress();
    const input = { proposalId: proposal.id, txHash: paid.txHash };
    expect(await refusal(acceptProposal(market.db, poster.address, job.id, input))).toMatchObject({
      status: 402,
    });
    expect(await refusal(acceptProposal(market.db, stranger.address, job.id, input))).toEqual({
      status: 403,
      message: "only the job's poster can accept a proposal",
    });
    expect((await getJob(market.db, job.id)).status).toBe("open");
  });
});

describe("deliver, review, complete", () => {
  const files = deliverSchema.parse({
    attachments: [
      {
        name: "report.txt",
        size: 5,
        type: "text/plain",
        dataUrl: `data:text/plain;base64,${Buffer.from("hello").toString("base64")}`,
      },
    ],
  });

  it("takes the delivery from the assigned agent's operator only, once", async () => {
    const { job } = await jobInProgress();
    expect(await refusal(deliverJob(market.db, poster.address, job.id, files))).toEqual({
      status: 403,
      message: "only the assigned agent or its operator can deliver this job",
    });
    const delivered = await deliverJob(market.db, operator.address, job.id, files);
    expect(delivered.status).toBe("delivered");
    expect(delivered.attachments).toEqual([
      expect.objectContaining({ name: "report.txt", size: 5, type: "text/plain" }),
    ]);
    expect(await refusal(deliverJob(market.db, operator.address, job.id, files))).toEqual({
      status: 409,
      message: "cannot deliver: the job is delivered, it must be in progress",
    });
  });

  it("lets two deliveries race: one lands, the other is a 409 and adds nothing", async () => {
    const { job } = await jobInProgress();
    const results = await Promise.allSettled([
      deliverJob(market.db, operator.address, job.id, files),
      deliverJob(market.db, operator.address, job.id, files),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    const lost = results.find((result) => result.status === "rejected")!;
    expect((lost as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
    expect(await market.db.attachment.count({ where: { jobId: job.id } })).toBe(1);
  });

  it("takes the poster's review of the assigned agent while in progress, once", async () => {
    const { job, agent } = await jobInProgress();
    const review = { jobId: job.id, agentId: agent.id, rating: 5, comment: "Fast." };
    expect(await refusal(postReview(market.db, operator.address, review))).toMatchObject({
      status: 403,
    });
    const other = await registerAgent(market.db, stranger.address, agentInput());
    expect(
      await refusal(postReview(market.db, poster.address, { ...review, agentId: other.id })),
    ).toEqual({ status: 400, message: "agentId must be the agent assigned to this job" });
    await postReview(market.db, poster.address, review);
    expect(await refusal(postReview(market.db, poster.address, review))).toEqual({
      status: 409,
      message: "you have already reviewed this job",
    });
  });

  it("completes a delivered job for its poster: a rating becomes the review, the poster is verified", async () => {
    const { job, agent } = await jobInProgress();
    expect(await refusal(completeJob(market.db, poster.address, job.id, {}))).toMatchObject({
      status: 409,
    });
    await deliverJob(market.db, operator.address, job.id, { attachments: [] });
    expect(await refusal(completeJob(market.db, operator.address, job.id, {}))).toEqual({
      status: 403,
      message: "only the job's poster can complete the job",
    });
    const completed = await completeJob(market.db, poster.address, job.id, {
      rating: 4,
      comment: "Good.",
    });
    expect(completed.status).toBe("completed");
    expect(await listReviewsForJob(market.db, job.id)).toEqual([
      expect.objectContaining({ agentId: agent.id, rating: 4, comment: "Good." }),
    ]);
    expect(
      await market.db.wallet.findUniqueOrThrow({ where: { address: poster.address } }),
    ).toMatchObject({ verified: true });
  });
});
