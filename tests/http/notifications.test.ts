// Notifications over HTTP against the production app server: every type produced by a real
// lifecycle (a real x402 payment on the local chain included) reaches the side the recipients
// table names and no one else; listing, the unread filter and count, mark read by ids and up to
// an id (idempotent; another wallet's ids 404 and change nothing); 400/401/403 refusals; and
// of 20 racing rejects of one proposal exactly one notification (the losers roll back).
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ApiClient } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import {
  BUSY_TEST_SERVER_ENV,
  createJob,
  expectStatus,
  registerAgent,
  signedInClient,
  submitProposal,
} from "@/tests/helpers/fixtures";
import { payFor, type PaymentTarget } from "@/tests/helpers/market";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

interface Notification {
  id: string;
  type: string;
  jobId: string;
  proposalId: string | null;
  reviewId: string | null;
  messageId: string | null;
  read: boolean;
}

describe.each(DB_KINDS)("notifications over HTTP on %s", (kind) => {
  let server: RunningServer;
  let market: PaymentTarget;
  let cleanup: () => Promise<void>;

  async function notificationsOf(client: ApiClient, query = "limit=100") {
    const page = expectStatus(await client.get(`/api/v1/notifications?${query}`), 200);
    return page as {
      data: Notification[];
      meta: { nextCursor: string | null; unreadCount: number };
    };
  }
  const typesOn = async (client: ApiClient, jobId: string) =>
    (await notificationsOf(client)).data
      .filter((item) => item.jobId === jobId)
      .map((item) => item.type)
      .reverse();

  beforeAll(async () => {
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    server = await startServer({ ...database.env, ...BUSY_TEST_SERVER_ENV });
    market = { chain: { rpcUrl: inject("testChainRpcUrl") }, server };
  });
  afterAll(async () => {
    await server?.stop();
    await cleanup?.();
  });

  it("tells each side of a real lifecycle what the other did, paid on chain", async () => {
    const payeeAccount = privateKeyToAccount(generatePrivateKey());
    const [poster, operator, rival, payee, stranger] = await Promise.all([
      signedInClient(server.url),
      signedInClient(server.url),
      signedInClient(server.url),
      new ApiClient(server.url, payeeAccount).signIn(),
      signedInClient(server.url),
    ]);
    const job = await createJob(poster);
    const agent = expectStatus(
      await operator.post("/api/v1/agents", {
        name: "Lens",
        categories: ["research"],
        walletAddress: payeeAccount.address,
      }),
      201,
    ).data;
    await payee.consentAsPayee(agent.id);
    const bid = await submitProposal(operator, job.id, agent.id);
    const rivalBid = await submitProposal(rival, job.id, (await registerAgent(rival, "Rival")).id);
    const messages = `/api/v1/jobs/${job.id}/proposals/${bid.id}/messages` as const;
    const question = expectStatus(await operator.post(messages, { body: "Which format?" }), 200);
    expectStatus(await poster.post(messages, { body: "Markdown." }), 200);

    const txHash = await payFor(market, poster, job.id, bid.id);
    expectStatus(
      await poster.post(`/api/v1/jobs/${job.id}/accept`, { proposalId: bid.id, txHash }),
      200,
    );
    expectStatus(await payee.post(`/api/v1/jobs/${job.id}/deliver`, {}), 200);
    expectStatus(
      await poster.post(`/api/v1/jobs/${job.id}/complete`, { rating: 5, comment: "Great" }),
      200,
    );

    const agentSide = ["message.created", "job.accepted", "job.completed", "review.created"];
    expect(await typesOn(poster, job.id)).toEqual([
      "proposal.submitted",
      "proposal.submitted",
      "message.created",
      "job.delivered",
    ]);
    expect(await typesOn(operator, job.id)).toEqual(agentSide);
    expect(await typesOn(payee, job.id)).toEqual(agentSide);
    expect(await typesOn(rival, job.id)).toEqual(["proposal.rejected"]);
    expect(await typesOn(stranger, job.id)).toEqual([]);

    const posterMessage = (await notificationsOf(poster)).data.find(
      (item) => item.type === "message.created",
    )!;
    expect(posterMessage).toMatchObject({
      proposalId: bid.id,
      messageId: question.data.id,
      // The poster answered in the thread, which read the question.
      read: true,
    });
    const rejected = (await notificationsOf(rival)).data[0]!;
    expect(rejected).toMatchObject({ proposalId: rivalBid.id, read: false });
    const review = (await notificationsOf(payee)).data.find(
      (item) => item.type === "review.created",
    )!;
    expect(review.reviewId).toMatch(/^rev_/);
    // A notification carries ids and the job's title, never a message's text.
    expect(JSON.stringify(await notificationsOf(operator))).not.toContain("Markdown.");
  });

  it("lists newest first, filters unread, marks read by ids and up to an id, idempotently", async () => {
    const [owner, bidder, stranger] = await Promise.all([
      signedInClient(server.url),
      signedInClient(server.url),
      signedInClient(server.url),
    ]);
    const agent = await registerAgent(bidder);
    for (let i = 0; i < 3; i++) {
      await submitProposal(bidder, (await createJob(owner, { title: `Job ${i}` })).id, agent.id);
    }
    const first = await notificationsOf(owner, "limit=2");
    expect(first.meta.unreadCount).toBe(3);
    const second = await notificationsOf(owner, `limit=2&cursor=${first.meta.nextCursor}`);
    expect([...first.data, ...second.data]).toHaveLength(3);
    expect(second.meta.nextCursor).toBeNull();
    const [newest, middle] = first.data;

    const read = "/api/v1/notifications/read";
    expect(expectStatus(await owner.post(read, { ids: [middle!.id] }), 200).data).toEqual({
      marked: 1,
      unreadCount: 2,
    });
    expect(expectStatus(await owner.post(read, { ids: [middle!.id] }), 200).data).toEqual({
      marked: 0,
      unreadCount: 2,
    });
    expect((await notificationsOf(owner, "unread=true")).data.map((item) => item.id)).not.toContain(
      middle!.id,
    );

    // Someone else's id is unknown to the caller: 404, and the owner's stay unread.
    expect((await stranger.post(read, { ids: [newest!.id] })).status).toBe(404);
    expect((await owner.post(read, { ids: [newest!.id, "999999999999"] })).status).toBe(404);
    expect((await notificationsOf(owner)).meta.unreadCount).toBe(2);
    // upTo a stranger's id marks nothing of the owner's beyond their own rows.
    expect(expectStatus(await stranger.post(read, { upTo: newest!.id }), 200).data).toEqual({
      marked: 0,
      unreadCount: 0,
    });

    expect(expectStatus(await owner.post(read, { upTo: newest!.id }), 200).data).toEqual({
      marked: 2,
      unreadCount: 0,
    });
    expect(expectStatus(await owner.post(read, { upTo: newest!.id }), 200).data).toEqual({
      marked: 0,
      unreadCount: 0,
    });
  });

  it("refuses bad input (400), no session (401), a token without read (403)", async () => {
    const owner = await signedInClient(server.url);
    const read = "/api/v1/notifications/read";
    const bodies: [unknown, string][] = [
      [{}, "send either ids (a list) or upTo (one id), not both and not neither"],
      [
        { ids: ["1"], upTo: "1" },
        "send either ids (a list) or upTo (one id), not both and not neither",
      ],
      [{ ids: [] }, "ids must name at least one notification"],
      [{ ids: ["abc"] }, "ids must be notification ids (whole numbers)"],
      [{ ids: [1] }, "ids must be strings"],
      [{ upTo: "0" }, "upTo must be a notification id (a whole number)"],
      [
        { ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) },
        "ids may name at most 100 notifications",
      ],
    ];
    for (const [body, message] of bodies) {
      const refused = await owner.post(read, body);
      expect([refused.status, refused.body.error], JSON.stringify(body)).toEqual([400, message]);
    }
    for (const query of ["unread=yes", "limit=0", "limit=101", "cursor=abc"]) {
      expect((await owner.get(`/api/v1/notifications?${query}`)).status, query).toBe(400);
    }
    const anonymous = new ApiClient(server.url);
    expect((await anonymous.get("/api/v1/notifications")).status).toBe(401);
    expect((await anonymous.post(read, { upTo: "1" })).status).toBe(401);

    const token = expectStatus(
      await owner.post("/api/v1/tokens", { name: "no read", scopes: ["post", "bid"] }),
      200,
    ).data.token as string;
    const bearer = <M extends string, P extends string>(method: M, path: P, json?: unknown) =>
      anonymous.request(method, path, { json, headers: { authorization: `Bearer ${token}` } });
    for (const refused of [
      await bearer("GET", "/api/v1/notifications"),
      await bearer("POST", read, { upTo: "1" }),
    ]) {
      expect([refused.status, refused.body.code]).toEqual([403, "insufficient_scope"]);
    }
    expect((await owner.request("PUT", "/api/v1/notifications")).status).toBe(405);
    expect((await owner.get(read)).status).toBe(405);
  });

  it("of 20 racing rejects of one proposal, one commits and one notification is written", async () => {
    const [poster, operator] = await Promise.all([
      signedInClient(server.url),
      signedInClient(server.url),
    ]);
    const job = await createJob(poster);
    const bid = await submitProposal(operator, job.id, (await registerAgent(operator)).id);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        poster.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`).then((r) => r.status),
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    expect(await typesOn(operator, job.id)).toEqual(["proposal.rejected"]);
  });
});
