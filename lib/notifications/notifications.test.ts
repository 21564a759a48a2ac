// Notifications in-process (PGlite, a real local chain): every type comes from a real write
// (a real x402 payment included) and goes to the side the recipients table names, each wallet
// of that side once; they are written in the write's own transaction (a rolled-back write
// leaves none); listing, unread counts and mark read (by ids, up to an id; idempotent; another
// wallet's ids are 404 and change nothing).
import { describe, expect, it } from "@/tests/helpers/fixture";
import { type LocalAccount } from "viem";
import { postMessage } from "@/lib/conversations/threads";
import { DomainError } from "@/lib/platform/errors";
import { writeEvents } from "@/lib/kernel/write";
import { registerAgent } from "@/lib/marketplace/agents";
import { createJob } from "@/lib/marketplace/jobs";
import { submitProposal } from "@/lib/marketplace/proposals";
import { acceptProposal, completeJob, deliverJob } from "@/lib/marketplace/transitions";
import { listNotificationsQuerySchema } from "@/lib/shared/schemas/notifications";
import {
  agentInput,
  consentAsPayee,
  type InProcessMarket,
  jobInput,
  newWallet,
  proposalInput,
  settle,
  signedPayment,
} from "@/tests/helpers/in-process";
import { listNotifications, markNotificationsRead, unreadNotificationCount } from "./notifications";
import { AUDIENCE, recipientsOf } from "@/lib/kernel/notice-recipients";

const poster = newWallet();
const operator = newWallet();
const payee = newWallet();
const rival = newWallet();

const all = listNotificationsQuerySchema.parse({ limit: "100" });
const session = (account: LocalAccount) => ({ via: "session" as const, wallet: account.address });

async function typesOf(market: InProcessMarket, account: LocalAccount, jobId: string) {
  const page = await listNotifications(market.db, account.address, all);
  return page.items
    .filter((item) => item.jobId === jobId)
    .map((item) => item.type)
    .reverse();
}

describe("the recipients table", () => {
  it("sends each type to the side that did not act, each wallet once, never to the actor", () => {
    const p = newWallet().address;
    const [w, o] = [newWallet().address, newWallet().address];
    const both = { posterAddress: p, agentWallets: [w, o, w.toLowerCase()] };
    expect(recipientsOf("proposal.submitted", both)).toEqual([p]);
    expect(recipientsOf("job.accepted", both)).toEqual([w, o]);
    expect(recipientsOf("message.created", both, p)).toEqual([w, o]);
    expect(recipientsOf("message.created", both, o)).toEqual([p]);
    expect(recipientsOf("message.created", both, w.toLowerCase())).toEqual([p]);
    expect(Object.keys(AUDIENCE)).not.toContain("job.created");
  });
});

describe("notifications from a real lifecycle", () => {
  it("tells each side what the other did: proposal, rejection, acceptance, delivery, review, completion, messages", async ({
    market,
  }) => {
    const job = await createJob(market.db, poster.address, jobInput());
    // An agent whose payee wallet is not its operator: both hear of the agent's business.
    const agent = await registerAgent(
      market.db,
      operator.address,
      agentInput({ walletAddress: payee.address }),
    );
    await consentAsPayee(market.db, payee, agent.id);
    const rivalAgent = await registerAgent(market.db, rival.address, agentInput());
    const bid = await submitProposal(market.db, operator.address, job.id, proposalInput(agent.id));
    const rivalBid = await submitProposal(
      market.db,
      rival.address,
      job.id,
      proposalInput(rivalAgent.id),
    );
    await postMessage(market.db, session(operator), job.id, bid.id, { body: "A question?" });
    await postMessage(market.db, session(poster), job.id, bid.id, { body: "An answer." });

    const target = { jobId: job.id, proposalId: bid.id };
    const txHash = await settle(market, target, await signedPayment(market, poster, target));
    await acceptProposal(market.db, poster.address, job.id, { proposalId: bid.id, txHash });
    await deliverJob(market.db, payee.address, job.id, { attachments: [] });
    await completeJob(market.db, poster.address, job.id, { rating: 5, comment: "Great" });

    expect(await typesOf(market, poster, job.id)).toEqual([
      "proposal.submitted",
      "proposal.submitted",
      "message.created",
      "job.delivered",
    ]);
    const agentSide = [
      "message.created",
      "job.accepted",
      // Completing with a rating: the completion, then the review it writes.
      "job.completed",
      "review.created",
    ];
    expect(await typesOf(market, payee, job.id)).toEqual(agentSide);
    // Both agent wallets hear of the poster's answer; the question went to the poster only.
    expect(await typesOf(market, operator, job.id)).toEqual(agentSide);
    expect(await typesOf(market, rival, job.id)).toEqual(["proposal.rejected"]);

    const rejected = (await listNotifications(market.db, rival.address, all)).items[0]!;
    expect(rejected).toMatchObject({
      type: "proposal.rejected",
      jobId: job.id,
      jobTitle: job.title,
      proposalId: rivalBid.id,
      read: false,
    });
    const review = (await listNotifications(market.db, payee.address, all)).items.find(
      (item) => item.type === "review.created",
    );
    expect(review?.reviewId).toMatch(/^rev_/);
  });

  it("is written in the write's own transaction: rolled back with it, nothing left", async ({
    market,
  }) => {
    const job = await createJob(market.db, poster.address, jobInput());
    const agent = await registerAgent(market.db, operator.address, agentInput());
    const bid = await submitProposal(market.db, operator.address, job.id, proposalInput(agent.id));
    const unread = { recipient: poster.address, readAt: null };
    const before = await unreadNotificationCount(market.db, poster.address);
    const boom = new Error("the write fails after its events and notifications");
    await expect(
      market.db.$transaction(async (tx) => {
        await writeEvents(tx, [{ type: "proposal.submitted", jobId: job.id, proposalId: bid.id }]);
        // Inside the transaction the notification exists...
        expect(await tx.notification.count({ where: unread })).toBe(before + 1);
        throw boom;
      }),
    ).rejects.toBe(boom);
    // ...and after the rollback it does not, nor its event.
    expect(await unreadNotificationCount(market.db, poster.address)).toBe(before);
    expect(
      await market.db.event.count({ where: { jobId: job.id, type: "proposal.submitted" } }),
    ).toBe(1);
  });
});

describe("listing and mark read", () => {
  it("pages newest first, counts unread, marks by ids and up to an id, idempotently", async ({
    market,
  }) => {
    const owner = newWallet();
    const bidder = newWallet();
    const agent = await registerAgent(market.db, bidder.address, agentInput());
    const jobs = [];
    for (let i = 0; i < 3; i++) {
      const job = await createJob(market.db, owner.address, jobInput({ title: `Job ${i}` }));
      await submitProposal(market.db, bidder.address, job.id, proposalInput(agent.id));
      jobs.push(job);
    }
    const first = await listNotifications(market.db, owner.address, { ...all, limit: 2 });
    expect(first.items.map((item) => item.jobTitle)).toEqual(["Job 2", "Job 1"]);
    expect(first.unreadCount).toBe(3);
    const second = await listNotifications(market.db, owner.address, {
      ...all,
      limit: 2,
      cursor: BigInt(first.nextCursor!),
    });
    expect(second.items.map((item) => item.jobTitle)).toEqual(["Job 0"]);
    expect(second.nextCursor).toBeNull();

    const [newest, middle] = first.items;
    expect(
      await markNotificationsRead(market.db, owner.address, { ids: [BigInt(middle!.id)] }),
    ).toEqual({ marked: 1, unreadCount: 2 });
    // Again: nothing changes, still 200-worthy.
    expect(
      await markNotificationsRead(market.db, owner.address, { ids: [BigInt(middle!.id)] }),
    ).toEqual({ marked: 0, unreadCount: 2 });
    const unread = await listNotifications(market.db, owner.address, { ...all, unread: true });
    expect(unread.items.map((item) => item.jobTitle)).toEqual(["Job 2", "Job 0"]);

    // Someone else's id: 404, and nothing of the caller's request is applied.
    const stranger = newWallet();
    const refused = await markNotificationsRead(market.db, stranger.address, {
      ids: [BigInt(newest!.id)],
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).status).toBe(404);
    const mixed = await markNotificationsRead(market.db, owner.address, {
      ids: [BigInt(newest!.id), 999_999_999n],
    }).catch((error: unknown) => error);
    expect((mixed as DomainError).status).toBe(404);
    expect(await unreadNotificationCount(market.db, owner.address)).toBe(2);

    expect(
      await markNotificationsRead(market.db, owner.address, { upTo: BigInt(newest!.id) }),
    ).toEqual({ marked: 2, unreadCount: 0 });
    expect(
      await markNotificationsRead(market.db, owner.address, { upTo: BigInt(newest!.id) }),
    ).toEqual({ marked: 0, unreadCount: 0 });
  });
});
