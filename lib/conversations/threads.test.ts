// Conversations in-process (PGlite): who may read and write a proposal's thread (the poster,
// the agent's payee wallet and operator; nobody else, not even another bidder), newest last,
// paging, read markers and unread counts per side, reading marks the thread's message
// notifications read, a rejected proposal's thread is read-only, token scopes per side.
import { describe, expect, it } from "@/tests/helpers/fixture";
import { type LocalAccount } from "viem";
import type { Caller } from "@/lib/auth/caller";
import { DomainError } from "@/lib/platform/errors";
import { getAgentsByIds, registerAgent } from "@/lib/marketplace/agents";
import { createJob } from "@/lib/marketplace/jobs";
import { rejectProposal, submitProposal } from "@/lib/marketplace/proposals";
import { listNotifications } from "@/lib/notifications/notifications";
import type { TokenScope } from "@/lib/shared/enums";
import { listNotificationsQuerySchema } from "@/lib/shared/schemas/notifications";
import {
  agentInput,
  consentAsPayee,
  type InProcessMarket,
  jobInput,
  newWallet,
  proposalInput,
} from "@/tests/helpers/in-process";
import { getJobThreads } from "./job-threads";
import { markThreadRead, postMessage, readThread } from "./threads";

const session = (account: LocalAccount): Caller => ({ via: "session", wallet: account.address });
const token = (account: LocalAccount, scopes: TokenScope[]): Caller => ({
  via: "token",
  wallet: account.address,
  tokenId: "tok_test",
  scopes,
});
const everything = { after: 0n, limit: 100 };

async function refusal(write: Promise<unknown>) {
  const error = await write.then(
    () => new Error("expected a refusal"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

async function setUp(market: InProcessMarket) {
  const [poster, operator, payee, rival, stranger] = Array.from({ length: 5 }, newWallet);
  const job = await createJob(market.db, poster!.address, jobInput());
  const agent = await registerAgent(
    market.db,
    operator!.address,
    agentInput({ walletAddress: payee!.address }),
  );
  await consentAsPayee(market.db, payee!, agent.id);
  const rivalAgent = await registerAgent(market.db, rival!.address, agentInput());
  const bid = await submitProposal(market.db, operator!.address, job.id, proposalInput(agent.id));
  const rivalBid = await submitProposal(
    market.db,
    rival!.address,
    job.id,
    proposalInput(rivalAgent.id),
  );
  return {
    poster: poster!,
    operator: operator!,
    payee: payee!,
    rival: rival!,
    stranger: stranger!,
    job,
    agent,
    bid,
    rivalBid,
  };
}

describe("a proposal's thread", () => {
  it("is shared by the poster and the agent's wallet and operator, newest last", async ({
    market,
  }) => {
    const { poster, operator, payee, job, bid } = await setUp(market);
    await postMessage(market.db, session(operator), job.id, bid.id, { body: "First" });
    await postMessage(market.db, session(poster), job.id, bid.id, { body: "Second" });
    await postMessage(market.db, session(payee), job.id, bid.id, { body: "Third" });
    for (const reader of [poster, operator, payee]) {
      const page = await readThread(market.db, reader.address, job.id, bid.id, everything);
      expect(page.items.map((message) => [message.body, message.side])).toEqual([
        ["First", "agent"],
        ["Second", "poster"],
        ["Third", "agent"],
      ]);
      expect(page.nextCursor).toBeNull();
    }
  });

  it("is refused to everyone else (403), and unknown ids are 404, also another job's proposal", async ({
    market,
  }) => {
    const { rival, stranger, job, bid } = await setUp(market);
    const other = await setUp(market);
    for (const outsider of [rival, stranger]) {
      expect(
        (await refusal(readThread(market.db, outsider.address, job.id, bid.id, everything))).status,
      ).toBe(403);
      expect(
        (await refusal(postMessage(market.db, session(outsider), job.id, bid.id, { body: "hi" })))
          .status,
      ).toBe(403);
    }
    expect(
      (
        await refusal(
          readThread(market.db, other.poster.address, job.id, "prop_missing", everything),
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await refusal(
          readThread(market.db, other.poster.address, "job_missing", bid.id, everything),
        )
      ).status,
    ).toBe(404);
    // The other job's own poster, asking for this job's proposal through their job: 404.
    expect(
      (await refusal(readThread(market.db, other.poster.address, other.job.id, bid.id, everything)))
        .status,
    ).toBe(404);
  });

  it("needs post from the poster's token and bid from the agent's side's", async ({ market }) => {
    const { poster, operator, job, bid } = await setUp(market);
    const posterBid = await refusal(
      postMessage(market.db, token(poster, ["read", "bid"]), job.id, bid.id, { body: "x" }),
    );
    expect([posterBid.status, posterBid.code]).toEqual([403, "insufficient_scope"]);
    const agentPost = await refusal(
      postMessage(market.db, token(operator, ["read", "post"]), job.id, bid.id, { body: "x" }),
    );
    expect([agentPost.status, agentPost.code]).toEqual([403, "insufficient_scope"]);
    await postMessage(market.db, token(poster, ["post"]), job.id, bid.id, { body: "ok" });
    await postMessage(market.db, token(operator, ["bid"]), job.id, bid.id, { body: "ok" });
  });

  it("counts unread per reader, from the other side only; reading changes nothing, marking read moves the marker and reads the notifications", async ({
    market,
  }) => {
    const { poster, operator, payee, job, bid } = await setUp(market);
    for (const body of ["one", "two", "three"]) {
      await postMessage(market.db, session(operator), job.id, bid.id, { body });
    }
    const firstPage = await readThread(market.db, poster.address, job.id, bid.id, {
      after: 0n,
      limit: 2,
    });
    expect(firstPage.items.map((message) => message.body)).toEqual(["one", "two"]);
    expect(firstPage.unreadCount).toBe(3);
    const notices = listNotificationsQuerySchema.parse({ unread: "true" });
    const unreadMessages = async (account: LocalAccount) =>
      (await listNotifications(market.db, account.address, notices)).items.filter(
        (item) => item.proposalId === bid.id && item.type === "message.created",
      );
    expect(await unreadMessages(poster)).toHaveLength(3);
    // Reading again (a GET) leaves everything unread.
    const again = await readThread(market.db, poster.address, job.id, bid.id, everything);
    expect(again.unreadCount).toBe(3);
    expect(await unreadMessages(poster)).toHaveLength(3);

    // Marked read up to the first page's last message: one left.
    const upTo = BigInt(firstPage.items.at(-1)!.id);
    expect(await markThreadRead(market.db, poster.address, job.id, bid.id, { upTo })).toEqual({
      unreadCount: 1,
    });
    expect(await unreadMessages(poster)).toHaveLength(1);
    // The marker never moves back; an id past the newest message stops at the newest.
    expect(await markThreadRead(market.db, poster.address, job.id, bid.id, { upTo: 1n })).toEqual({
      unreadCount: 1,
    });
    expect(
      await markThreadRead(market.db, poster.address, job.id, bid.id, { upTo: 2n ** 62n }),
    ).toEqual({ unreadCount: 0 });
    expect(await unreadMessages(poster)).toHaveLength(0);
    // Only the parties may; a stranger gets 403 and the marker is untouched.
    const stranger = await refusal(
      markThreadRead(market.db, newWallet().address, job.id, bid.id, {}),
    );
    expect(stranger.status).toBe(403);
    // The payee wallet is on the operator's side: its own side's messages are not news.
    expect(
      (await readThread(market.db, payee.address, job.id, bid.id, { after: 0n, limit: 1 }))
        .unreadCount,
    ).toBe(0);

    // The job page shows what is unread and changes nothing (the page marks read by POST).
    await postMessage(market.db, session(payee), job.id, bid.id, { body: "four" });
    const agents = await getAgentsByIds(market.db, [bid.agentId]);
    const shown = () => getJobThreads(market.db, poster.address, job, [bid], agents);
    expect((await shown()).get(bid.id)?.unread).toBe(1);
    expect((await shown()).get(bid.id)?.unread).toBe(1);
    await markThreadRead(market.db, poster.address, job.id, bid.id, {});
    expect((await shown()).get(bid.id)?.unread).toBe(0);
    // A stranger gets no thread at all.
    expect((await getJobThreads(market.db, newWallet().address, job, [bid], agents)).size).toBe(0);
  });

  it("is read-only once the proposal is rejected (409), still readable", async ({ market }) => {
    const { poster, operator, job, bid } = await setUp(market);
    await postMessage(market.db, session(operator), job.id, bid.id, { body: "Before" });
    await rejectProposal(market.db, poster.address, job.id, bid.id);
    for (const writer of [poster, operator]) {
      const refused = await refusal(
        postMessage(market.db, session(writer), job.id, bid.id, { body: "After" }),
      );
      expect([refused.status, refused.message]).toEqual([
        409,
        "the proposal was rejected: its conversation is closed (read-only)",
      ]);
    }
    const page = await readThread(market.db, operator.address, job.id, bid.id, everything);
    expect(page.items.map((message) => message.body)).toEqual(["Before"]);
  });
});
