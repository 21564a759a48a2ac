// Access tokens over HTTP against the production app server: each write route allowed with
// its scope and refused without it, expired and revoked tokens, tokens that cannot manage
// tokens, the secret shown once and stored hashed, and never written to the server's output.
import { createHash } from "node:crypto";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAccessToken } from "@/lib/auth/access-tokens";
import { openDatabase } from "@/lib/db/client";
import { resolveDbTarget } from "@/lib/db/target";
import type { TokenScope } from "@/lib/shared/enums";
import { ApiClient, type ApiResponse } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import {
  BUSY_TEST_SERVER_ENV,
  createJob,
  expectStatus,
  registerAgent,
  submitProposal,
  validJobBody,
} from "@/tests/helpers/fixtures";
import { payFor, type PaymentTarget } from "@/tests/helpers/market";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

const ALL: TokenScope[] = ["read", "post", "bid", "deliver", "review"];
const allBut = (...scopes: TokenScope[]) => ALL.filter((scope) => !scopes.includes(scope));
const DAY = 24 * 60 * 60 * 1000;

describe.each(DB_KINDS)("access tokens over HTTP on %s", (kind) => {
  let server: RunningServer;
  let market: PaymentTarget;
  let cleanup: () => Promise<void>;
  let poster: ApiClient;
  let operator: ApiClient;
  /** Every secret this suite saw, to look for in the server's output and the database. */
  const secrets: string[] = [];
  let expiredSecret: string;

  /** A token of `client`'s wallet, made through the API with its session cookie. */
  async function tokenOf(client: ApiClient, scopes: TokenScope[], name = scopes.join("+")) {
    const body = expectStatus(
      await client.post("/api/v1/tokens", { name, scopes, expiresInDays: 7 }),
      200,
      "create token",
    );
    secrets.push(body.data.token);
    return body.data as { id: string; token: string };
  }

  /** A request with only the bearer token (no cookie). */
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
    const posterAccount = privateKeyToAccount(generatePrivateKey());
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    // A token that expired yesterday, written before the server starts (it holds the database).
    const seeded = await openDatabase(resolveDbTarget(database.env));
    try {
      const expired = await createAccessToken(
        seeded.db,
        posterAccount.address,
        { name: "old", scopes: ALL, expiresInDays: 1 },
        new Date(Date.now() - 2 * DAY),
      );
      expiredSecret = expired.token;
      secrets.push(expiredSecret);
    } finally {
      await seeded.close();
    }
    server = await startServer({ ...database.env, ...BUSY_TEST_SERVER_ENV });
    market = { chain: { rpcUrl: inject("testChainRpcUrl") }, server };
    [poster, operator] = await Promise.all([
      new ApiClient(server.url, posterAccount).signIn(),
      new ApiClient(server.url, privateKeyToAccount(generatePrivateKey())).signIn(),
    ]);
  });

  afterAll(async () => {
    await server?.stop();
    await cleanup?.();
  });

  describe("each write route with and without its scope", () => {
    // Filled in as the rows run, in order: one job walked through its whole life.
    const state: Record<string, string> = {};
    const tokens: Record<string, Record<string, string>> = { poster: {}, operator: {} };
    const attachment = {
      name: "summary.txt",
      size: 5,
      type: "text/plain",
      dataUrl: "data:text/plain;base64,aGVsbG8=",
    };

    /** The `data` of a row's answer, as the row's route documents it. */
    const dataOf = <T>(response: ApiResponse) => (response.body as { data: T }).data;

    interface Row {
      route: string;
      /** The scopes the route needs; each is refused alone, with every other scope present. */
      scopes: TokenScope[];
      as: "poster" | "operator";
      prepare?: () => Promise<void>;
      send: (token: string) => Promise<ApiResponse>;
      status: number;
      after?: (response: ApiResponse) => void;
    }

    const ROWS: Row[] = [
      {
        route: "POST /api/v1/jobs",
        scopes: ["post"],
        as: "poster",
        send: (token) => withToken(token, "POST", "/api/v1/jobs", validJobBody()),
        status: 201,
        after: (response) => (state.jobId = dataOf<{ id: string }>(response).id),
      },
      {
        route: "POST /api/v1/agents",
        scopes: ["bid"],
        as: "operator",
        send: (token) =>
          withToken(token, "POST", "/api/v1/agents", { name: "Lens", categories: ["research"] }),
        status: 201,
        after: (response) => (state.agentId = dataOf<{ id: string }>(response).id),
      },
      {
        route: "POST /api/v1/jobs/:id/proposals",
        scopes: ["bid"],
        as: "operator",
        send: (token) =>
          withToken(token, "POST", `/api/v1/jobs/${state.jobId}/proposals`, {
            agentId: state.agentId,
            bidUsdc: 3.5,
            etaDays: 2,
            message: "I can do it",
          }),
        status: 201,
        after: (response) => (state.proposalId = dataOf<{ id: string }>(response).id),
      },
      {
        route: "POST /api/v1/jobs/:id/proposals/:proposalId/reject",
        scopes: ["post"],
        as: "poster",
        prepare: async () => {
          const other = await registerAgent(operator, "Quill");
          state.otherProposalId = (await submitProposal(operator, state.jobId!, other.id)).id;
        },
        send: (token) =>
          withToken(
            token,
            "POST",
            `/api/v1/jobs/${state.jobId}/proposals/${state.otherProposalId}/reject`,
          ),
        status: 200,
        after: (response) => expect(dataOf<{ status: string }>(response).status).toBe("rejected"),
      },
      {
        route: "POST /api/v1/jobs/:id/accept",
        scopes: ["post"],
        as: "poster",
        // Paying is the x402 resource, signed by the poster's wallet: no token takes part.
        prepare: async () => {
          state.txHash = await payFor(market, poster, state.jobId!, state.proposalId!);
        },
        send: (token) =>
          withToken(token, "POST", `/api/v1/jobs/${state.jobId}/accept`, {
            proposalId: state.proposalId,
            txHash: state.txHash,
          }),
        status: 200,
        after: (response) =>
          expect(dataOf<{ status: string }>(response).status).toBe("in_progress"),
      },
      {
        route: "POST /api/v1/reviews",
        scopes: ["review"],
        as: "poster",
        send: (token) =>
          withToken(token, "POST", "/api/v1/reviews", {
            agentId: state.agentId,
            jobId: state.jobId,
            rating: 5,
            comment: "Quick",
          }),
        status: 201,
      },
      {
        route: "POST /api/v1/jobs/:id/deliver",
        scopes: ["deliver"],
        as: "operator",
        send: (token) =>
          withToken(token, "POST", `/api/v1/jobs/${state.jobId}/deliver`, {
            attachments: [attachment],
          }),
        status: 200,
        after: (response) =>
          (state.attachmentId = dataOf<{ attachments: { id: string }[] }>(
            response,
          ).attachments[0]!.id),
      },
      {
        route: "GET /api/v1/jobs/:id/attachments/:attachmentId",
        scopes: ["read"],
        as: "poster",
        send: (token) =>
          withToken(token, "GET", `/api/v1/jobs/${state.jobId}/attachments/${state.attachmentId}`),
        status: 200,
        after: (response) => expect(response.body).toBe("hello"),
      },
      {
        route: "POST /api/v1/jobs/:id/complete with a rating",
        scopes: ["post", "review"],
        as: "poster",
        send: (token) =>
          withToken(token, "POST", `/api/v1/jobs/${state.jobId}/complete`, {
            rating: 4,
            comment: "Good",
          }),
        status: 200,
        after: (response) => expect(dataOf<{ status: string }>(response).status).toBe("completed"),
      },
    ];

    it("makes, for each scope, a token with only it and one with all but it", async () => {
      // Sanity: the table covers every write a token may make (tokens routes are cookie-only).
      expect(ROWS.map((row) => row.route.split(" with ")[0])).toEqual([
        "POST /api/v1/jobs",
        "POST /api/v1/agents",
        "POST /api/v1/jobs/:id/proposals",
        "POST /api/v1/jobs/:id/proposals/:proposalId/reject",
        "POST /api/v1/jobs/:id/accept",
        "POST /api/v1/reviews",
        "POST /api/v1/jobs/:id/deliver",
        "GET /api/v1/jobs/:id/attachments/:attachmentId",
        "POST /api/v1/jobs/:id/complete",
      ]);
      for (const role of ["poster", "operator"] as const) {
        const client = role === "poster" ? poster : operator;
        for (const scope of ALL) {
          tokens[role]![`only:${scope}`] = (await tokenOf(client, [scope])).token;
          tokens[role]![`allBut:${scope}`] = (await tokenOf(client, allBut(scope))).token;
        }
      }
    });

    it.each(ROWS.map((row) => [row.route, row] as const))("%s", async (_route, row) => {
      await row.prepare?.();
      const own = tokens[row.as]!;
      for (const missing of row.scopes) {
        const refused = await row.send(own[`allBut:${missing}`]!);
        expect(refused.status, `${row.route} without ${missing}`).toBe(403);
        expect(refused.body).toEqual({
          error: `this access token does not have the "${missing}" scope (it has: ${allBut(missing).join(", ")})`,
          code: "insufficient_scope",
        });
        expect(refused.headers.get("www-authenticate")).toBe(
          `Bearer error="insufficient_scope", scope="${missing}"`,
        );
      }
      // Exactly the needed scopes: allowed, and the write happens once (the refusals did not).
      const token =
        row.scopes.length === 1
          ? own[`only:${row.scopes[0]}`]!
          : (await tokenOf(row.as === "poster" ? poster : operator, row.scopes)).token;
      const allowed = await row.send(token);
      expect(allowed.status, `${row.route}: ${JSON.stringify(allowed.body)}`).toBe(row.status);
      row.after?.(allowed);
    });

    it("complete without a rating needs only post", async () => {
      const job = await createJob(poster);
      const refused = await withToken(
        tokens.poster!["only:review"]!,
        "POST",
        `/api/v1/jobs/${job.id}/complete`,
        {},
      );
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("insufficient_scope");
      // With post, the request reaches the lifecycle rules: an open job cannot be completed.
      const reached = await withToken(
        tokens.poster!["only:post"]!,
        "POST",
        `/api/v1/jobs/${job.id}/complete`,
        {},
      );
      expect(reached.status).toBe(409);
    });

    it("a token acts as its wallet: the role rules still hold", async () => {
      // The operator's token has every scope, but the job is the poster's.
      const job = await createJob(poster);
      const response = await withToken(
        tokens.operator!["allBut:read"]!,
        "POST",
        `/api/v1/jobs/${job.id}/complete`,
        {},
      );
      expect(response).toMatchObject({
        status: 403,
        body: { error: "only the job's poster can complete the job" },
      });
      const created = await withToken(
        tokens.poster!["only:post"]!,
        "POST",
        "/api/v1/jobs",
        validJobBody(),
      );
      expect(created.body.data.posterAddress).toBe(poster.account!.address);
    });
  });

  describe("dead tokens", () => {
    it("an expired token gets 401 invalid_token", async () => {
      const response = await withToken(expiredSecret, "POST", "/api/v1/jobs", validJobBody());
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        error: "the access token has expired; create a new one",
        code: "invalid_token",
      });
      expect(response.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    });

    it("a revoked token gets 401 on every route, from the moment it is revoked", async () => {
      const token = await tokenOf(poster, ALL);
      expect((await withToken(token.token, "POST", "/api/v1/jobs", validJobBody())).status).toBe(
        201,
      );
      const revoked = await poster.request("DELETE", `/api/v1/tokens/${token.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.data).toMatchObject({ id: token.id, status: "revoked" });
      for (const [method, path] of [
        ["POST", "/api/v1/jobs"],
        ["POST", "/api/v1/agents"],
        ["GET", "/api/v1/jobs/job_x/attachments/att_x"],
        ["POST", "/api/mcp"],
      ] as const) {
        const response = await withToken(
          token.token,
          method,
          path,
          method === "POST" ? {} : undefined,
        );
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.body).toEqual({
          error: "the access token has been revoked",
          code: "invalid_token",
        });
      }
      // Revoking again answers the same; another wallet cannot see it at all.
      expect((await poster.request("DELETE", `/api/v1/tokens/${token.id}`)).status).toBe(200);
      expect((await operator.request("DELETE", `/api/v1/tokens/${token.id}`)).status).toBe(404);
    });

    it("unknown and malformed tokens get 401, before the body is read", async () => {
      const valid = await tokenOf(poster, ["post"]);
      for (const header of [
        `Bearer amk_${"A".repeat(43)}`,
        `Bearer ${valid.token.slice(0, -1)}`,
        `Bearer ${valid.token}x`,
        "Bearer",
        "bearer   ",
      ]) {
        const response = await new ApiClient(server.url).request("POST", "/api/v1/jobs", {
          json: validJobBody(),
          headers: { authorization: header },
        });
        expect(response.status, header).toBe(401);
        expect(response.body).toEqual({
          error: "the access token is not valid",
          code: "invalid_token",
        });
      }
    });

    it("a bearer token is judged alone, even beside a live session cookie", async () => {
      const response = await poster.request("POST", "/api/v1/jobs", {
        json: validJobBody(),
        headers: { authorization: `Bearer ${expiredSecret}` },
      });
      expect(response.status).toBe(401);
    });
  });

  describe("managing tokens", () => {
    it("shows the secret once: the list and the settings page never carry it", async () => {
      const created = await poster.post("/api/v1/tokens", {
        name: "research bot",
        scopes: ["read", "bid"],
        expiresInDays: 90,
      });
      expect(created.status).toBe(200);
      const token = created.body.data;
      secrets.push(token.token);
      expect(token).toMatchObject({
        name: "research bot",
        scopes: ["read", "bid"],
        status: "active",
        hint: `amk_…${token.token.slice(-4)}`,
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(token.token).toMatch(/^amk_[A-Za-z0-9_-]{43}$/);
      expect(Date.parse(token.expiresAt) - Date.parse(token.createdAt)).toBe(90 * DAY);

      const list = await poster.get("/api/v1/tokens");
      expect(list.status).toBe(200);
      const listed = list.body.data.find((item: { id: string }) => item.id === token.id);
      expect(listed).toEqual({ ...token, token: undefined });
      expect(Object.keys(listed!)).not.toContain("token");
      const page = await poster.get("/settings/tokens");
      expect(page.status).toBe(200);
      expect(page.body).toContain("research bot");
      expect(page.body).toContain(token.hint);
      for (const secret of secrets) {
        expect(JSON.stringify(list.body)).not.toContain(secret);
        expect(page.body).not.toContain(secret);
      }
      // Only the wallet's own tokens.
      const theirs = await operator.get("/api/v1/tokens");
      expect(theirs.body.data.map((item: { id: string }) => item.id)).not.toContain(token.id);
    });

    it("tokens cannot create, list or revoke tokens (403 session_required)", async () => {
      const token = await tokenOf(poster, ALL);
      const refusals = [
        await withToken(token.token, "POST", "/api/v1/tokens", { name: "child", scopes: ALL }),
        await withToken(token.token, "GET", "/api/v1/tokens"),
        await withToken(token.token, "DELETE", `/api/v1/tokens/${token.id}`),
        await withToken(token.token, "GET", "/api/auth/session"),
        // Beside the wallet's own live cookie, the token still decides.
        await poster.request("POST", "/api/v1/tokens", {
          json: { name: "child", scopes: ALL },
          headers: { authorization: `Bearer ${token.token}` },
        }),
      ];
      for (const response of refusals) {
        expect(response.status).toBe(403);
        expect(response.body).toEqual({
          error:
            "access tokens cannot be used here: sign in with your wallet (a browser session) for this",
          code: "session_required",
        });
      }
      // Still live: the DELETE above revoked nothing.
      expect((await withToken(token.token, "POST", "/api/v1/jobs", validJobBody())).status).toBe(
        201,
      );
    });

    it("validates the request and needs a session", async () => {
      const bad = await poster.post("/api/v1/tokens", { name: "x", scopes: ["admin"] });
      expect(bad).toMatchObject({ status: 400 });
      expect(bad.body.error).toContain(
        "each scope must be one of: read, post, bid, deliver, review",
      );
      const tooLong = await poster.post("/api/v1/tokens", {
        name: "x",
        scopes: ["read"],
        expiresInDays: 366,
      });
      expect(tooLong.body).toEqual({
        error: "expiresInDays must be from 1 to 365",
        code: "invalid_request",
      });
      expect(
        (await new ApiClient(server.url).post("/api/v1/tokens", { name: "x", scopes: ["read"] }))
          .status,
      ).toBe(401);
      expect((await poster.request("DELETE", "/api/v1/tokens/tok_unknown")).status).toBe(404);
      expect((await poster.request("PUT", "/api/v1/tokens")).status).toBe(405);
    });

    it("cookie writes need our Origin; bearer writes need none", async () => {
      const foreign = { origin: "https://evil.example" };
      const csrf = await poster.post("/api/v1/tokens", { name: "x", scopes: ["read"] }, foreign);
      expect(csrf.status).toBe(403);
      const token = await tokenOf(poster, ["post"]);
      const bearer = await new ApiClient(server.url).request("POST", "/api/v1/jobs", {
        json: validJobBody(),
        headers: { authorization: `Bearer ${token.token}`, ...foreign },
      });
      expect(bearer.status).toBe(201);
    });
  });

  describe("secrets stay secret", () => {
    it("never appear in the server's output, also for failed requests and tokens in URLs", async () => {
      const token = await tokenOf(poster, ["read"]);
      // Failing requests: the wrong scope, a token in a query string and in a path.
      expect((await withToken(token.token, "POST", "/api/v1/jobs", validJobBody())).status).toBe(
        403,
      );
      expect((await poster.get(`/api/v1/jobs?access_token=${token.token}`)).status).toBe(200);
      expect((await poster.get(`/api/v1/jobs/${token.token}`)).status).toBe(404);
      expect((await poster.request("DELETE", `/api/v1/tokens/${token.token}`)).status).toBe(404);
      expect((await poster.get(`/api/${token.token}`)).status).toBe(404);
      // The server's whole output, stdout and stderr, after it stops (nothing left unflushed).
      await server.stop();
      const output = server.logs();
      expect(output).toContain("Ready on"); // the capture works
      expect(secrets.length).toBeGreaterThan(20);
      for (const secret of secrets) {
        expect(output).not.toContain(secret);
        expect(output).not.toContain(secret.slice(4));
      }
    });

    it("are stored as SHA-256 hashes only", async () => {
      // The server is stopped (PGlite admits one process): read its rows directly.
      const database = await openDatabase(resolveDbTarget(server.env));
      try {
        const rows = await database.db.accessToken.findMany();
        expect(rows.length).toBe(secrets.length);
        const hashes = new Set(rows.map((row) => row.tokenHash));
        for (const secret of secrets) {
          expect(hashes.has(createHash("sha256").update(secret).digest("hex"))).toBe(true);
          expect(
            JSON.stringify(rows, (_key, value) => (typeof value === "bigint" ? `${value}` : value)),
          ).not.toContain(secret.slice(4));
        }
      } finally {
        await database.close();
      }
    });
  });
});
