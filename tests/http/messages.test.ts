// Conversations over HTTP against the production app server: a proposal's private thread is
// read and written by the job's poster and the agent's side (its payee wallet and its
// operator) only. The privacy table (poster, operator, agent wallet, another bidder, a
// stranger, no session, tokens without the scope, unknown ids, a proposal of another job), the
// bounds of a message (5,000 characters taken, 5,001 and blank refused), a rejected proposal's
// thread read-only (409), and no trace of a conversation in the public routes or event feed.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenScope } from "@/lib/shared/enums";
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
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

describe.each(DB_KINDS)("conversations over HTTP on %s", (kind) => {
  let server: RunningServer;
  let cleanup: () => Promise<void>;
  let poster: ApiClient;
  let operator: ApiClient;
  let payee: ApiClient;
  let rival: ApiClient;
  let stranger: ApiClient;
  let job: { id: string };
  let bid: { id: string; agentId: string };
  let rivalBid: { id: string };

  const thread = (jobId: string, proposalId: string) =>
    `/api/v1/jobs/${jobId}/proposals/${proposalId}/messages` as const;

  async function tokenOf(client: ApiClient, scopes: TokenScope[]) {
    const created = expectStatus(
      await client.post("/api/v1/tokens", { name: scopes.join("+"), scopes }),
      200,
      "create token",
    );
    return created.data.token as string;
  }

  function withToken<M extends string, P extends string>(
    token: string,
    method: M,
    path: P,
    json?: unknown,
  ) {
    return new ApiClient(server.url).request(method, path, {
      json,
      headers: { authorization: `Bearer ${token}` },
    });
  }

  beforeAll(async () => {
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    server = await startServer({ ...database.env, ...BUSY_TEST_SERVER_ENV });
    const payeeAccount = privateKeyToAccount(generatePrivateKey());
    [poster, operator, rival, stranger, payee] = await Promise.all([
      signedInClient(server.url),
      signedInClient(server.url),
      signedInClient(server.url),
      signedInClient(server.url),
      new ApiClient(server.url, payeeAccount).signIn(),
    ]);
    job = await createJob(poster);
    const agent = expectStatus(
      await operator.post("/api/v1/agents", {
        name: "Lens",
        categories: ["research"],
        walletAddress: payeeAccount.address,
      }),
      201,
      "register agent",
    ).data;
    await payee.consentAsPayee(agent.id);
    bid = await submitProposal(operator, job.id, agent.id);
    rivalBid = await submitProposal(rival, job.id, (await registerAgent(rival, "Rival")).id);
  });
  afterAll(async () => {
    await server?.stop();
    await cleanup?.();
  });

  it("lets the poster, the operator and the agent's wallet talk, newest last (200)", async () => {
    const writers: [ApiClient, string, string][] = [
      [operator, "Which format do you want?", "agent"],
      [poster, "Markdown, please.", "poster"],
      [payee, "Noted.", "agent"],
    ];
    for (const [writer, body, side] of writers) {
      const sent = expectStatus(await writer.post(thread(job.id, bid.id), { body }), 200).data;
      expect(sent).toMatchObject({ jobId: job.id, proposalId: bid.id, body, side });
      expect(sent.senderAddress).toBe(writer.account!.address);
    }
    // Unread: what the other side wrote after the reader's own last message (writing reads).
    for (const [reader, unread] of [
      [poster, 1],
      [operator, 1],
      [payee, 0],
    ] as const) {
      const page = expectStatus(await reader.get(thread(job.id, bid.id)), 200);
      expect(page.data.map((message: { body: string }) => message.body)).toEqual(
        writers.map(([, body]) => body),
      );
      expect(page.meta).toEqual({ nextCursor: null, unreadCount: unread });
      // Reading changed nothing; marking read (POST) does.
      expect(expectStatus(await reader.get(thread(job.id, bid.id)), 200).meta.unreadCount).toBe(
        unread,
      );
      expect(
        expectStatus(await reader.post(`${thread(job.id, bid.id)}/read`, {}), 200).data,
      ).toEqual({ unreadCount: 0 });
      expect(expectStatus(await reader.get(thread(job.id, bid.id)), 200).meta.unreadCount).toBe(0);
    }
  });

  it("refuses everyone else: another bidder and a stranger 403, no session 401", async () => {
    for (const outsider of [rival, stranger]) {
      const read = await outsider.get(thread(job.id, bid.id));
      expect([read.status, read.body.error]).toEqual([
        403,
        "only the job's poster and the proposal's agent (its wallet or operator) can see this conversation",
      ]);
      expect((await outsider.post(thread(job.id, bid.id), { body: "Hello?" })).status).toBe(403);
    }
    const anonymous = new ApiClient(server.url);
    expect((await anonymous.get(thread(job.id, bid.id))).status).toBe(401);
    expect((await anonymous.post(thread(job.id, bid.id), { body: "Hi" })).status).toBe(401);
    // The rival's own thread is not the operator's either.
    expect((await operator.get(thread(job.id, rivalBid.id))).status).toBe(403);
  });

  it("answers 404 for an unknown job or proposal, and for a proposal of another job", async () => {
    const otherJob = await createJob(poster);
    const cases = [
      thread("job_unknown", bid.id),
      thread(job.id, "prop_unknown"),
      thread(otherJob.id, bid.id),
      thread(job.id, "x".repeat(300)),
    ];
    for (const path of cases) {
      expect((await poster.get(path)).status, path).toBe(404);
      expect((await poster.post(path, { body: "Hi" })).status, path).toBe(404);
    }
  });

  it("takes tokens with read to read, and post (poster) or bid (agent's side) to write", async () => {
    const readOnly = await tokenOf(poster, ["read"]);
    const posterWrongSide = await tokenOf(poster, ["read", "bid"]);
    const posterRight = await tokenOf(poster, ["post"]);
    const operatorWrongSide = await tokenOf(operator, ["read", "post"]);
    const operatorRight = await tokenOf(operator, ["bid"]);
    const deliverOnly = await tokenOf(operator, ["deliver"]);

    expect((await withToken(readOnly, "GET", thread(job.id, bid.id))).status).toBe(200);
    const noRead = await withToken(posterRight, "GET", thread(job.id, bid.id));
    expect([noRead.status, noRead.body.code]).toEqual([403, "insufficient_scope"]);

    // Without post or bid: refused at the door, before the body is read.
    const atTheDoor = await withToken(readOnly, "POST", thread(job.id, bid.id), { body: "x" });
    expect([atTheDoor.status, atTheDoor.body.code]).toEqual([403, "insufficient_scope"]);
    expect(atTheDoor.headers.get("www-authenticate")).toBe(
      'Bearer error="insufficient_scope", scope="post bid"',
    );
    expect(
      (await withToken(deliverOnly, "POST", thread(job.id, bid.id), { body: "x" })).status,
    ).toBe(403);
    // With the other side's scope: refused for the caller's side.
    for (const token of [posterWrongSide, operatorWrongSide]) {
      const refused = await withToken(token, "POST", thread(job.id, bid.id), { body: "x" });
      expect([refused.status, refused.body.code]).toEqual([403, "insufficient_scope"]);
    }
    expect(
      (await withToken(posterRight, "POST", thread(job.id, bid.id), { body: "ok" })).status,
    ).toBe(200);
    expect(
      (await withToken(operatorRight, "POST", thread(job.id, bid.id), { body: "ok" })).status,
    ).toBe(200);
  });

  it("takes 5,000 characters and refuses 5,001, blank, missing and non-text bodies (400)", async () => {
    const longest = "é".repeat(5_000);
    const taken = expectStatus(await poster.post(thread(job.id, bid.id), { body: longest }), 200);
    expect(taken.data.body).toBe(longest);
    const refusals: [unknown, string][] = [
      [{ body: "a".repeat(5_001) }, "body must be at most 5000 characters"],
      [{ body: "   \n " }, "body must not be empty"],
      [{ body: "" }, "body must not be empty"],
      [{}, "body must be a string"],
      [{ body: 42 }, "body must be a string"],
      [{ body: "bell\u0007" }, "body contains characters that are not allowed"],
    ];
    for (const [input, message] of refusals) {
      const refused = await poster.post(thread(job.id, bid.id), input);
      expect([refused.status, refused.body.error]).toEqual([400, message]);
    }
    for (const query of [
      "after=abc",
      "after=-1",
      "after=9999999999999999999",
      "limit=0",
      "limit=101",
    ]) {
      expect((await poster.get(`${thread(job.id, bid.id)}?${query}`)).status, query).toBe(400);
    }
    expect((await poster.request("PUT", thread(job.id, bid.id))).status).toBe(405);
  });

  it("pages oldest first with after and limit; a GET marks nothing read, POST …/read moves only the reader's marker", async () => {
    const freshJob = await createJob(poster);
    const freshBid = await submitProposal(operator, freshJob.id, bid.agentId);
    const path = thread(freshJob.id, freshBid.id);
    for (const body of ["1", "2", "3"]) {
      expectStatus(await operator.post(path, { body }), 200);
    }
    const first = expectStatus(await poster.get(`${path}?limit=2`), 200);
    expect(first.data.map((message: { body: string }) => message.body)).toEqual(["1", "2"]);
    expect(first.meta.unreadCount).toBe(3);
    const rest = expectStatus(await poster.get(`${path}?after=${first.meta.nextCursor}`), 200);
    expect(rest.data.map((message: { body: string }) => message.body)).toEqual(["3"]);
    expect(rest.meta).toEqual({ nextCursor: null, unreadCount: 3 });

    // Up to the first page's last message: one left; the operator's own count is untouched.
    const upTo = first.data[1]!.id;
    expect(expectStatus(await poster.post(`${path}/read`, { upTo }), 200).data).toEqual({
      unreadCount: 1,
    });
    expect(expectStatus(await operator.get(path), 200).meta.unreadCount).toBe(0);
    // Never backwards; an empty body means the newest; twice is the same.
    expect(expectStatus(await poster.post(`${path}/read`, { upTo: "1" }), 200).data).toEqual({
      unreadCount: 1,
    });
    for (let i = 0; i < 2; i++) {
      expect(expectStatus(await poster.post(`${path}/read`), 200).data).toEqual({
        unreadCount: 0,
      });
    }
    // Only the parties; ids out of range are the client's 400, never a 500.
    expect((await stranger.post(`${path}/read`, {})).status).toBe(403);
    expect((await rival.post(`${path}/read`, {})).status).toBe(403);
    for (const upTo of ["0", "-1", "abc", "9999999999999999999", 5]) {
      expect((await poster.post(`${path}/read`, { upTo })).status, String(upTo)).toBe(400);
    }
    expect((await new ApiClient(server.url).post(`${path}/read`, {})).status).toBe(401);
  });

  it("closes a rejected proposal's thread (409) and keeps it readable", async () => {
    expectStatus(await rival.post(thread(job.id, rivalBid.id), { body: "Any questions?" }), 200);
    expectStatus(await poster.post(`/api/v1/jobs/${job.id}/proposals/${rivalBid.id}/reject`), 200);
    for (const writer of [poster, rival]) {
      const refused = await writer.post(thread(job.id, rivalBid.id), { body: "But why?" });
      expect([refused.status, refused.body.error]).toEqual([
        409,
        "the proposal was rejected: its conversation is closed (read-only)",
      ]);
    }
    const page = expectStatus(await rival.get(thread(job.id, rivalBid.id)), 200);
    expect(page.data.map((message: { body: string }) => message.body)).toEqual(["Any questions?"]);
  });

  it("leaves no trace in public routes: not in the event feed, the job or its proposals", async () => {
    const secret = `secret-${Date.now()}`;
    expectStatus(await poster.post(thread(job.id, bid.id), { body: secret }), 200);
    const anonymous = new ApiClient(server.url);
    const publicAnswers = await Promise.all([
      anonymous.get(`/api/v1/events?after=0&limit=100&jobId=${job.id}`),
      anonymous.get(`/api/v1/jobs/${job.id}`),
      anonymous.get(`/api/v1/jobs/${job.id}/proposals?status=all`),
    ]);
    for (const answer of publicAnswers) {
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).not.toContain(secret);
    }
    const types = publicAnswers[0]!.body.data.map((event: { type: string }) => event.type);
    expect(types.some((type: string) => type.startsWith("message"))).toBe(false);
  });
});
