// Every write of the marketplace, in-process on PGlite with the real local chain and the
// in-process facilitator (tests/http checks the same over HTTP). Who may do what, in which
// state, reads like the spec's tables: 403 for the wrong actor, then 409 for the wrong state.
import { describe, expect, it } from "@/tests/helpers/fixture";
import { mintTestUsdc } from "@/dev/local-chain";
import { DomainError } from "@/lib/platform/errors";
import { toErrorResponse } from "@/lib/api/envelope";
import { deliverSchema } from "@/lib/shared/schemas/jobs";
import {
  agentInput,
  consentAsPayee,
  type InProcessMarket,
  jobInput,
  jobWithBid,
  newWallet,
  proposalInput,
  settle,
  signedPayment,
} from "@/tests/helpers/in-process";
import { tokenReader } from "@/tests/helpers/x402";
import { listAgents, registerAgent } from "./agents";
import { createJob, getJob, listJobs } from "./jobs";
import { listProposals, rejectProposal, submitProposal } from "./proposals";
import { listReviews, listReviewsForJob, postReview } from "./reviews";
import { acceptProposal, completeJob, deliverJob } from "./transitions";

const poster = newWallet();
const operator = newWallet();
const stranger = newWallet();

// A stalled chain answers "pending" after 2 s instead of the production 20.
it.override("marketEnv", { SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "2" });

/** Runs `write` and returns the DomainError's status and message it fails with. */
async function refusal(write: Promise<unknown>) {
  const error = await write.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${error}`);
  return { status: error.status, message: error.message };
}

/**
 * What the route answers when a write throws: the status and body of lib/http's mapping
 * (DomainError → its status, a schema's ZodError → 400 with the issue).
 */
async function answered(write: Promise<unknown>) {
  const error = await write.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (error === undefined) throw new Error("expected a refusal, the write succeeded");
  const response = toErrorResponse(error);
  return { status: response.status, ...((await response.json()) as { error: string }) };
}

/** An open job with a bid, paid and accepted: in progress. */
async function jobInProgress(market: InProcessMarket) {
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
  it("creates an open job in atomic units inside, USDC at the edge, with a default handle", async ({
    market,
  }) => {
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

  it("registers an agent paid at its operator's wallet unless another payee is named", async ({
    market,
  }) => {
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
    // Another wallet is the payee only once it agrees: until then, none.
    expect(other).toMatchObject({
      walletAddress: null,
      payeeConsentPending: true,
      operatorAddress: operator.address,
    });
  });

  it.for([
    [
      "a budget",
      (market: InProcessMarket) =>
        createJob(market.db, poster.address, jobInput({ budgetUsdc: 0.999999 })),
    ],
    [
      "a dust budget",
      (market: InProcessMarket) =>
        createJob(market.db, poster.address, jobInput({ budgetUsdc: 0.000001 })),
    ],
  ] as const)(
    "refuses %s under MIN_AMOUNT_USDC (400 amount_below_minimum)",
    async ([_, call], { market }) => {
      await expect(call(market)).rejects.toMatchObject({
        status: 400,
        code: "amount_below_minimum",
        message: "budgetUsdc must be at least 1 USDC",
      });
    },
  );
});

describe("propose", () => {
  it("takes a bid from the agent's operator or its payee wallet, one active bid per agent", async ({
    market,
  }) => {
    const job = await createJob(market.db, poster.address, jobInput());
    const payee = newWallet();
    const agent = await registerAgent(
      market.db,
      operator.address,
      agentInput({ walletAddress: payee.address }),
    );
    await consentAsPayee(market.db, payee, agent.id);
    const bid = await submitProposal(market.db, payee.address, job.id, proposalInput(agent.id));
    expect(bid).toMatchObject({ status: "pending", bidUsdc: 7.25, agentId: agent.id });
    expect(
      await refusal(submitProposal(market.db, operator.address, job.id, proposalInput(agent.id))),
    ).toEqual({ status: 409, message: "this agent already has an active proposal on this job" });
  });

  it("refuses a stranger's agent (403), the poster's own job (403) and a job not open (409)", async ({
    market,
  }) => {
    const { job } = await jobInProgress(market);
    const open = await createJob(market.db, poster.address, jobInput());
    const agent = await registerAgent(market.db, operator.address, agentInput());
    const posters = await registerAgent(market.db, poster.address, agentInput());
    expect(
      await refusal(submitProposal(market.db, stranger.address, open.id, proposalInput(agent.id))),
    ).toEqual({ status: 403, message: "you can only bid with an agent you operate" });
    expect(
      await refusal(submitProposal(market.db, poster.address, open.id, proposalInput(posters.id))),
    ).toEqual({
      status: 403,
      message: "this agent's payee is the job's poster: a poster cannot pay itself",
    });
    // An agent the poster operates but that pays another (consenting) wallet: still its own job.
    const payee = newWallet();
    const posterRun = await registerAgent(
      market.db,
      poster.address,
      agentInput({ walletAddress: payee.address }),
    );
    await consentAsPayee(market.db, payee, posterRun.id);
    for (const caller of [poster, payee]) {
      expect(
        await refusal(
          submitProposal(market.db, caller.address, open.id, proposalInput(posterRun.id)),
        ),
      ).toEqual({ status: 403, message: "you cannot bid on your own job" });
    }
    expect(
      await refusal(submitProposal(market.db, operator.address, job.id, proposalInput(agent.id))),
    ).toEqual({
      status: 409,
      message: "cannot submit a proposal: the job is in progress, it must be open",
    });
  });
});

describe("reject", () => {
  it("lets the poster reject a pending bid once; no one else may", async ({ market }) => {
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

  it("refuses to reject a paid proposal: it is accepted with its hash instead", async ({
    market,
  }) => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    const target = { jobId: job.id, proposalId: proposal.id };
    await settle(market, target, await signedPayment(market, poster, target));
    expect(await refusal(rejectProposal(market.db, poster.address, job.id, proposal.id))).toEqual({
      status: 409,
      message: "this proposal is paid; accept it with the payment's txHash instead of rejecting it",
    });
  });

  it("refuses to reject a proposal whose payment is still settling (the chain stalled)", async ({
    market,
  }) => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    const target = { jobId: job.id, proposalId: proposal.id };
    const header = await signedPayment(market, poster, target);
    await market.chain.pauseMining();
    try {
      await expect(settle(market, target, header)).rejects.toMatchObject({
        code: "settlement_pending",
      });
      expect(await refusal(rejectProposal(market.db, poster.address, job.id, proposal.id))).toEqual(
        {
          status: 409,
          message: "a payment for this proposal is being settled; it cannot be rejected",
        },
      );
    } finally {
      await market.chain.resumeMining();
    }
  });
});

describe("accept", () => {
  it("moves the job to in progress with the settlement's hash and rejects the other bids", async ({
    market,
  }) => {
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

  it("refuses a hash that is not this job's settlement (402) and a stranger (403 before 402)", async ({
    market,
  }) => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    const paid = await jobInProgress(market);
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

describe("accept refuses a settlement that does not pay for this bid (402, each with its reason)", () => {
  // The product only ever records a settlement for the exact terms it challenged; these rows
  // are edited by the test to show that accept checks each term itself, and the chain's
  // receipt, instead of trusting the ledger.
  async function paidBid(market: InProcessMarket, bidUsdc = 7.25) {
    const { job, agent, proposal } = await jobWithBid(
      market.db,
      poster.address,
      operator.address,
      bidUsdc,
    );
    const target = { jobId: job.id, proposalId: proposal.id };
    const txHash = await settle(market, target, await signedPayment(market, poster, target));
    return { job, agent, proposal, txHash };
  }
  const editLedger = (market: InProcessMarket, jobId: string, data: Record<string, unknown>) =>
    market.db.settlement.updateMany({ where: { jobId }, data });
  const accept = (
    market: InProcessMarket,
    paid: { job: { id: string }; proposal: { id: string } },
    txHash: `0x${string}`,
  ) =>
    acceptProposal(market.db, poster.address, paid.job.id, {
      proposalId: paid.proposal.id,
      txHash,
    });

  it.for([
    [
      "paid by someone other than the poster",
      () => ({ payer: stranger.address }),
      "it was not paid by the poster",
    ],
    [
      "underpaid: the recorded amount is below the bid",
      () => ({ amountAtomic: 7_249_999n }),
      "its amount is not the bid",
    ],
    [
      "paid to another wallet than the bid's payee",
      () => ({ payTo: stranger.address }),
      "it was not paid to the wallet the bid was made with",
    ],
    ["made on another network", () => ({ network: "eip155:8453" }), "it was made on eip155:8453"],
    [
      "paid in another asset",
      () => ({ asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }),
      "it paid in 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913, not USDC",
    ],
  ] as const)("%s", async ([_name, edit, reason], { market }) => {
    const paid = await paidBid(market);
    expect(await editLedger(market, paid.job.id, edit())).toEqual({ count: 1 });
    expect(await refusal(accept(market, paid, paid.txHash))).toEqual({
      status: 402,
      message: `the settlement does not pay for this bid: ${reason}`,
    });
    expect((await getJob(market.db, paid.job.id)).status).toBe("open");
  });

  it("a settlement of another proposal of the same job", async ({ market }) => {
    const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    const rival = await registerAgent(market.db, stranger.address, agentInput());
    const other = await submitProposal(
      market.db,
      stranger.address,
      job.id,
      proposalInput(rival.id),
    );
    const target = { jobId: job.id, proposalId: other.id };
    const txHash = await settle(market, target, await signedPayment(market, poster, target));
    expect(await refusal(accept(market, { job, proposal }, txHash))).toEqual({
      status: 402,
      message:
        "txHash is not a successful settlement of this job and proposal; " +
        "pay through POST /api/jobs/:id/settle?proposalId=... first",
    });
    // The paid proposal itself is accepted with the same hash.
    expect((await accept(market, { job, proposal: other }, txHash)).status).toBe("in_progress");
  });

  it("a ledger hash whose receipt is not a transfer of this payment (a faucet mint)", async ({
    market,
  }) => {
    const paid = await paidBid(market);
    const mint = await mintTestUsdc(market.chain.rpcUrl, poster.address, 1n);
    await editLedger(market, paid.job.id, { txHash: mint });
    expect(await refusal(accept(market, paid, mint))).toEqual({
      status: 402,
      message:
        "the chain's receipt does not show this payment: " +
        "no EIP-3009 authorization by the payer with this nonce in this transaction",
    });
  });

  it("a ledger hash naming another payment with the same payer, payee and amount", async ({
    market,
  }) => {
    const first = await paidBid(market);
    const second = await paidBid(market);
    // The first row gives its hash up (hashes are unique), the second row takes it.
    await editLedger(market, first.job.id, { txHash: `0x${"0".repeat(63)}1` });
    await editLedger(market, second.job.id, { txHash: first.txHash });
    expect(await refusal(accept(market, second, first.txHash))).toEqual({
      status: 402,
      message:
        "the chain's receipt does not show this payment: " +
        "no EIP-3009 authorization by the payer with this nonce in this transaction",
    });
  });
});

describe("list pages through rows created at the same instant", () => {
  // Rows written in one millisecond share createdAt; the cursor must still name one row, so
  // a page boundary inside such a tie neither repeats nor skips a row. Five tied rows, pages
  // of two: the boundaries fall inside the tie twice.
  const TIE = new Date("2026-11-22T12:00:00.000Z");

  async function pages<T extends { id: string }>(
    list: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
  ): Promise<string[][]> {
    const result: string[][] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const { items, nextCursor } = await list(cursor);
      result.push(items.map((item) => item.id));
      if (!nextCursor) return result;
      cursor = nextCursor;
    }
    throw new Error("the list did not end");
  }
  /** The ids in the order the list must give: createdAt, then id, both in `direction`. */
  const expected = (ids: string[], direction: "asc" | "desc") => {
    const sorted = [...ids].sort();
    return direction === "asc" ? sorted : sorted.reverse();
  };

  it("jobs (newest first)", async ({ market }) => {
    const category = "legal";
    const ids = [];
    for (let i = 0; i < 5; i++)
      ids.push((await createJob(market.db, poster.address, jobInput({ category }))).id);
    await market.db.job.updateMany({ where: { id: { in: ids } }, data: { createdAt: TIE } });
    const seen = await pages((cursor) => listJobs(market.db, { category, limit: 2, cursor }));
    expect(seen.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(seen.flat()).toEqual(expected(ids, "desc"));
  });

  it("agents (newest first)", async ({ market }) => {
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await registerAgent(
            market.db,
            stranger.address,
            agentInput({ categories: ["translation"] }),
          )
        ).id,
      );
    }
    await market.db.agent.updateMany({ where: { id: { in: ids } }, data: { createdAt: TIE } });
    const seen = await pages((cursor) =>
      listAgents(market.db, { category: "translation", sort: "newest", limit: 2, cursor }),
    );
    expect(seen.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(seen.flat()).toEqual(expected(ids, "desc"));
  });

  it("proposals (oldest first)", async ({ market }) => {
    const job = await createJob(market.db, poster.address, jobInput());
    const ids = [];
    for (let i = 0; i < 5; i++) {
      const agent = await registerAgent(market.db, operator.address, agentInput());
      ids.push(
        (await submitProposal(market.db, operator.address, job.id, proposalInput(agent.id))).id,
      );
    }
    await market.db.proposal.updateMany({ where: { id: { in: ids } }, data: { createdAt: TIE } });
    const seen = await pages((cursor) =>
      listProposals(market.db, job.id, { status: "all", limit: 2, cursor }),
    );
    expect(seen.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(seen.flat()).toEqual(expected(ids, "asc"));
  });

  it("reviews (newest first)", async ({ market }) => {
    const agent = await registerAgent(market.db, operator.address, agentInput());
    const ids = [];
    for (let i = 0; i < 5; i++) {
      const job = await createJob(market.db, poster.address, jobInput());
      const proposal = await submitProposal(
        market.db,
        operator.address,
        job.id,
        proposalInput(agent.id),
      );
      const target = { jobId: job.id, proposalId: proposal.id };
      const txHash = await settle(market, target, await signedPayment(market, poster, target));
      await acceptProposal(market.db, poster.address, job.id, { proposalId: proposal.id, txHash });
      ids.push(
        (
          await postReview(market.db, poster.address, {
            jobId: job.id,
            agentId: agent.id,
            rating: 5,
            comment: `r${i}`,
          })
        ).id,
      );
    }
    await market.db.review.updateMany({ where: { id: { in: ids } }, data: { createdAt: TIE } });
    const seen = await pages((cursor) => listReviews(market.db, agent.id, { limit: 2, cursor }));
    expect(seen.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(seen.flat()).toEqual(expected(ids, "desc"));
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

  it("takes the delivery from the assigned agent's operator only, once", async ({ market }) => {
    const { job } = await jobInProgress(market);
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

  const MiB = 1024 * 1024;
  /** A real file of `bytes` bytes whose declared size matches its data. */
  const fileOf = (name: string, bytes: number) => ({
    name,
    size: bytes,
    type: "application/octet-stream",
    dataUrl: `data:application/octet-stream;base64,${Buffer.alloc(bytes, 0x61).toString("base64")}`,
  });
  /** As the route does it: the body through the deliver schema, then the domain. */
  const deliverBody = (market: InProcessMarket, jobId: string, attachments: unknown[]) =>
    Promise.resolve().then(() =>
      deliverJob(market.db, operator.address, jobId, deliverSchema.parse({ attachments })),
    );

  it("refuses one file of 5 MiB + 1 byte whose size matches its data (400, the 5 MiB cap)", async ({
    market,
  }) => {
    const { job } = await jobInProgress(market);
    expect(await answered(deliverBody(market, job.id, [fileOf("big.bin", 5 * MiB + 1)]))).toEqual({
      status: 400,
      error: "attachments.0.size: an attachment may be at most 5242880 bytes (5 MiB)",
      code: "invalid_request",
    });
    expect((await getJob(market.db, job.id)).status).toBe("in_progress");
    expect(await market.db.attachment.count({ where: { jobId: job.id } })).toBe(0);
  });

  it("refuses 10 MiB + 1 byte in all, every file under 5 MiB (400, the 10 MiB total cap)", async ({
    market,
  }) => {
    const { job } = await jobInProgress(market);
    const files = [
      fileOf("a.bin", 4 * MiB),
      fileOf("b.bin", 4 * MiB),
      fileOf("c.bin", 2 * MiB + 1),
    ];
    expect(await answered(deliverBody(market, job.id, files))).toEqual({
      status: 400,
      error: "attachments may be at most 10 MiB in all",
      code: "attachments_too_large",
    });
    expect((await getJob(market.db, job.id)).status).toBe("in_progress");
    expect(await market.db.attachment.count({ where: { jobId: job.id } })).toBe(0);
  });

  it("takes exactly 10 MiB in two files of exactly 5 MiB", async ({ market }) => {
    const { job } = await jobInProgress(market);
    const delivered = await deliverBody(market, job.id, [
      fileOf("a.bin", 5 * MiB),
      fileOf("b.bin", 5 * MiB),
    ]);
    expect(delivered.attachments.map((file) => file.size)).toEqual([5 * MiB, 5 * MiB]);
  });

  it("lets two deliveries race: one lands, the other is a 409 and adds nothing", async ({
    market,
  }) => {
    const { job } = await jobInProgress(market);
    const results = await Promise.allSettled([
      deliverJob(market.db, operator.address, job.id, files),
      deliverJob(market.db, operator.address, job.id, files),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    const lost = results.find((result) => result.status === "rejected")!;
    expect((lost as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
    expect(await market.db.attachment.count({ where: { jobId: job.id } })).toBe(1);
  });

  it("takes the poster's review of the assigned agent while in progress, once", async ({
    market,
  }) => {
    const { job, agent } = await jobInProgress(market);
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

  it("completes a delivered job for its poster: a rating becomes the review, the poster is verified", async ({
    market,
  }) => {
    const { job, agent } = await jobInProgress(market);
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
