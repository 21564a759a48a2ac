// "My work" in-process on PGlite: each job lands in exactly one group of its poster's and its
// agent's lists (and in no stranger's), groups page without skipping or repeating across many
// jobs, bids filter by status and agent (403 for someone else's agent), and earnings/spend add
// up real settlements on the local chain, per agent and per UTC month.
import type { LocalAccount } from "viem";
import { describe, expect, it } from "@/tests/helpers/fixture";
import { DomainError } from "@/lib/platform/errors";
import { getMyEarnings } from "@/lib/payments/ledger/earnings";
import { acceptSchema, completeSchema, deliverSchema } from "@/lib/shared/schemas/jobs";
import {
  MY_JOB_GROUP_NAMES,
  type MyJobGroup,
  myEarningsQuerySchema,
  myJobsQuerySchema,
  myProposalsQuerySchema,
} from "@/lib/shared/schemas/me";
import {
  agentInput,
  type InProcessMarket,
  jobInput,
  newWallet,
  proposalInput,
  settle,
  signedPayment,
} from "@/tests/helpers/in-process";
import { registerAgent } from "./agents";
import { createJob } from "./jobs";
import { rejectProposal, submitProposal } from "./proposals";
import { acceptProposal, completeJob, deliverJob } from "./transitions";
import { getWork, listMyJobs, listMyProposals } from "./work";

const poster = newWallet();
const operator = newWallet();
const rival = newWallet();
const stranger = newWallet();
let agentId: string;
let rivalAgentId: string;
/** Which group each job is in, from the poster's side and from the agent's. */
const expected: Record<string, { poster: MyJobGroup; agent?: MyJobGroup }> = {};
const txHashes: Record<string, string> = {};
const BIDS = { inProgress: 7.25, delivered: 10, done: 2.5 };

async function paidJob(market: InProcessMarket, name: keyof typeof BIDS) {
  const job = await createJob(market.db, poster.address, jobInput({ title: name }));
  const bid = await submitProposal(
    market.db,
    operator.address,
    job.id,
    proposalInput(agentId, { bidUsdc: BIDS[name] }),
  );
  const target = { jobId: job.id, proposalId: bid.id };
  const txHash = await settle(market, target, await signedPayment(market, poster, target));
  txHashes[name] = txHash;
  await acceptProposal(
    market.db,
    poster.address,
    job.id,
    acceptSchema.parse({ proposalId: bid.id, txHash }),
  );
  return job.id;
}

it.beforeAll(async ({ market }) => {
  // Someone else's job, older than all of theirs: on no page of the poster's or the operator's
  // (once, every page after the first listed every job older than its cursor).
  await createJob(market.db, newWallet().address, jobInput({ title: "someone else's" }));
  agentId = (await registerAgent(market.db, operator.address, agentInput({ name: "Lens" }))).id;
  rivalAgentId = (await registerAgent(market.db, rival.address, agentInput({ name: "Quill" }))).id;

  const noBids = await createJob(market.db, poster.address, jobInput({ title: "no bids" }));
  expected[noBids.id] = { poster: "awaiting_proposals" };
  const bidOn = await createJob(market.db, poster.address, jobInput({ title: "bid on" }));
  await submitProposal(market.db, operator.address, bidOn.id, proposalInput(agentId));
  await submitProposal(market.db, rival.address, bidOn.id, proposalInput(rivalAgentId));
  expected[bidOn.id] = { poster: "proposals_waiting" };
  // Every bid rejected: nothing waits for the poster, the job waits for proposals again.
  const rejected = await createJob(market.db, poster.address, jobInput({ title: "rejected" }));
  const bad = await submitProposal(
    market.db,
    rival.address,
    rejected.id,
    proposalInput(rivalAgentId),
  );
  await rejectProposal(market.db, poster.address, rejected.id, bad.id);
  expected[rejected.id] = { poster: "awaiting_proposals" };

  const inProgress = await paidJob(market, "inProgress");
  expected[inProgress] = { poster: "in_progress", agent: "to_deliver" };
  const delivered = await paidJob(market, "delivered");
  await deliverJob(market.db, operator.address, delivered, deliverSchema.parse({}));
  expected[delivered] = { poster: "to_confirm", agent: "awaiting_confirmation" };
  const done = await paidJob(market, "done");
  await deliverJob(market.db, operator.address, done, deliverSchema.parse({}));
  await completeJob(market.db, poster.address, done, completeSchema.parse({}));
  expected[done] = { poster: "done", agent: "delivered_done" };
});

async function groupsOf(market: InProcessMarket, wallet: LocalAccount) {
  const found: Record<string, MyJobGroup[]> = {};
  for (const group of MY_JOB_GROUP_NAMES) {
    const page = await listMyJobs(market.db, wallet.address, myJobsQuerySchema.parse({ group }));
    for (const { job } of page.items) (found[job.id] ??= []).push(group);
  }
  return found;
}

describe("my jobs, grouped by what needs me", () => {
  it("puts each of the poster's jobs in exactly one group", async ({ market }) => {
    const found = await groupsOf(market, poster);
    expect(found).toEqual(
      Object.fromEntries(Object.entries(expected).map(([id, groups]) => [id, [groups.poster]])),
    );
  });

  it("puts each job assigned to the operator's agent in exactly one agent group", async ({
    market,
  }) => {
    const found = await groupsOf(market, operator);
    const assigned = Object.entries(expected).filter(([, groups]) => groups.agent);
    expect(found).toEqual(Object.fromEntries(assigned.map(([id, groups]) => [id, [groups.agent]])));
  });

  it("without a group lists all my jobs newest first, each with the group it is in", async ({
    market,
  }) => {
    for (const [wallet, side] of [
      [poster, "poster"],
      [operator, "agent"],
    ] as const) {
      const all: { id: string; group: MyJobGroup; createdAt: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = await listMyJobs(
          market.db,
          wallet.address,
          myJobsQuerySchema.parse({ limit: 1, ...(cursor ? { cursor } : {}) }),
        );
        all.push(
          ...page.items.map((i) => ({ id: i.job.id, group: i.group, createdAt: i.job.createdAt })),
        );
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const mine = Object.entries(expected).filter(([, groups]) => groups[side]);
      expect(all.map((item) => item.id).sort()).toEqual(mine.map(([id]) => id).sort());
      expect(Object.fromEntries(all.map((item) => [item.id, item.group]))).toEqual(
        Object.fromEntries(mine.map(([id, groups]) => [id, groups[side]])),
      );
      const times = all.map((item) => item.createdAt);
      expect(times).toEqual([...times].sort().reverse());
    }
  });

  it("shows a stranger and a rival (bids only, nothing assigned) no jobs", async ({ market }) => {
    expect(await groupsOf(market, stranger)).toEqual({});
    expect(await groupsOf(market, rival)).toEqual({});
    for (const wallet of [stranger, rival]) {
      const all = await listMyJobs(market.db, wallet.address, myJobsQuerySchema.parse({}));
      expect(all.items).toEqual([]);
    }
  });

  it("counts the pending proposals of each job", async ({ market }) => {
    const page = await listMyJobs(
      market.db,
      poster.address,
      myJobsQuerySchema.parse({ group: "proposals_waiting" }),
    );
    expect(page.items.map((item) => item.pendingProposals)).toEqual([2]);
  });

  it("pages through a group of many jobs without skipping or repeating one", async ({ market }) => {
    const many = newWallet();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const job = await createJob(market.db, many.address, jobInput({ title: `job ${i}` }));
      await submitProposal(market.db, operator.address, job.id, proposalInput(agentId));
      ids.push(job.id);
    }
    // One open job of theirs without a bid must not show among the waiting decisions.
    await createJob(market.db, many.address, jobInput({ title: "quiet" }));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listMyJobs(
        market.db,
        many.address,
        myJobsQuerySchema.parse({ group: "proposals_waiting", limit: 3, cursor }),
      );
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((item) => item.job.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it("refuses a cursor that is not one of ours (400)", async ({ market }) => {
    await expect(
      listMyJobs(
        market.db,
        poster.address,
        myJobsQuerySchema.parse({ group: "done", cursor: "not-a-cursor" }),
      ),
    ).rejects.toMatchObject({ kind: "invalid" });
  });
});

describe("my agents' bids", () => {
  const statuses = async (
    market: InProcessMarket,
    wallet: LocalAccount,
    query: Record<string, string> = {},
  ) =>
    (await listMyProposals(market.db, wallet.address, myProposalsQuerySchema.parse(query))).items
      .map((item) => `${item.job.title}:${item.proposal.status}`)
      .sort();

  it("lists every bid of the rival's agent, by status", async ({ market }) => {
    expect(await statuses(market, rival)).toEqual(["bid on:pending", "rejected:rejected"]);
    expect(await statuses(market, rival, { status: "rejected" })).toEqual(["rejected:rejected"]);
    expect(await statuses(market, rival, { status: "accepted" })).toEqual([]);
  });

  it("lists the operator's accepted bids with their jobs", async ({ market }) => {
    expect(await statuses(market, operator, { status: "accepted", agentId })).toEqual([
      "delivered:accepted",
      "done:accepted",
      "inProgress:accepted",
    ]);
  });

  it("refuses another operator's agent (403) and an unknown one (404)", async ({ market }) => {
    const refused = (query: Record<string, string>) =>
      listMyProposals(market.db, operator.address, myProposalsQuerySchema.parse(query)).then(
        () => null,
        (error: DomainError) => error.kind,
      );
    expect(await refused({ agentId: rivalAgentId })).toBe("forbidden");
    expect(await refused({ agentId: "agent_nope" })).toBe("not_found");
  });

  it("keeps the MCP tool my_work's answer: posted jobs, agents, assigned jobs, pending bids", async ({
    market,
  }) => {
    const work = await getWork(market.db, operator.address, { limit: 50 });
    expect(work.agents.map((agent) => agent.id)).toEqual([agentId]);
    expect(work.assigned.map((job) => job.title).sort()).toEqual([
      "delivered",
      "done",
      "inProgress",
    ]);
    expect(work.bids.every((bid) => bid.proposal.status === "pending")).toBe(true);
    expect(work.bids.map((bid) => bid.job.title)).toContain("bid on");
    const stranger = await getWork(market.db, newWallet().address, { limit: 50 });
    expect(stranger).toEqual({ posted: [], agents: [], assigned: [], bids: [] });
    // The poster's own jobs, each with its group, narrowed by status like the assigned ones.
    const posted = await getWork(market.db, poster.address, { limit: 50 });
    expect(Object.fromEntries(posted.posted.map((item) => [item.job.id, item.group]))).toEqual(
      Object.fromEntries(Object.entries(expected).map(([id, groups]) => [id, groups.poster])),
    );
    const delivered = await getWork(market.db, poster.address, { status: "delivered", limit: 50 });
    expect(delivered.posted.map((item) => item.group)).toEqual(["to_confirm"]);
  });
});

describe("earnings and spend from the settlements ledger", () => {
  const earnings = (
    market: InProcessMarket,
    wallet: LocalAccount,
    query: Record<string, string> = {},
  ) => getMyEarnings(market.db, wallet.address, myEarningsQuerySchema.parse(query));

  it("adds up the operator's settled payments per agent and month, with each hash", async ({
    market,
  }) => {
    const { view } = await earnings(market, operator);
    const month = new Date().toISOString().slice(0, 7);
    expect(view.earned).toEqual({
      totalUsdc: 19.75,
      payments: 3,
      byAgent: [{ agentId, agentName: "Lens", totalUsdc: 19.75, payments: 3 }],
      byMonth: [{ month, totalUsdc: 19.75, payments: 3 }],
    });
    expect(view.spent).toEqual({ totalUsdc: 0, payments: 0, byMonth: [] });
    expect(view.transactions.map((tx) => [tx.direction, tx.txHash]).sort()).toEqual(
      Object.values(txHashes)
        .map((hash) => ["earned", hash])
        .sort(),
    );
  });

  it("gives the poster the same payments as spend, and a stranger nothing", async ({ market }) => {
    const { view } = await earnings(market, poster);
    expect(view.spent.totalUsdc).toBe(19.75);
    expect(view.spent.payments).toBe(3);
    expect(view.earned.payments).toBe(0);
    expect(view.transactions.every((tx) => tx.direction === "spent")).toBe(true);
    expect((await earnings(market, stranger)).view.transactions).toEqual([]);
    expect((await earnings(market, rival)).view.earned.totalUsdc).toBe(0);
  });

  it("groups by UTC month at the month's edge and pages the transactions", async ({ market }) => {
    // Two payments moved to either side of midnight UTC on 1 October: different months.
    await market.db.settlement.update({
      where: { txHash: txHashes.inProgress!.toLowerCase() },
      data: { settledAt: new Date("2026-09-30T23:59:59.999Z") },
    });
    await market.db.settlement.update({
      where: { txHash: txHashes.delivered!.toLowerCase() },
      data: { settledAt: new Date("2026-10-01T00:00:00.000Z") },
    });
    const { view } = await earnings(market, operator);
    const byMonth = Object.fromEntries(view.earned.byMonth.map((m) => [m.month, m.totalUsdc]));
    expect(byMonth["2026-09"]).toBe(7.25);
    expect(byMonth["2026-10"]).toBe(10);
    expect(view.earned.totalUsdc).toBe(19.75);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await earnings(market, operator, { limit: "1", ...(cursor ? { cursor } : {}) });
      seen.push(...page.view.transactions.map((tx) => tx.txHash));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    // Newest first: done (this month), then 1 October, then 30 September.
    expect(seen).toEqual([txHashes.done, txHashes.delivered, txHashes.inProgress]);
  });
});
