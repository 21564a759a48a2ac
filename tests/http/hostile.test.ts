// A hostile client against the production server (real HTTP, real SIWE signatures): headers
// that try to widen who you are (Host, X-Forwarded-Host, X-Forwarded-For, our own internal
// header), cookies replayed after logout, bodies that lie about their size, never end or
// trickle in, and limits that must hold across several servers sharing one store.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DELIVER_BODY_LIMIT, JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import { CLIENT_ADDRESS_HEADER } from "@/lib/platform/client-address";
import { ApiClient } from "@/tests/helpers/api";
import { type DbKind, TEST_DATABASE_URL, TEST_REDIS_URL } from "@/tests/helpers/db";
import {
  BUSY_TEST_SERVER_ENV,
  type Cast,
  deliveredJob,
  expectStatus,
  jobInProgress,
  makeCast,
  openJobWithProposal,
  randomTxHash,
  sameSessionOn,
  signedInClient,
  validJobBody,
} from "@/tests/helpers/fixtures";
import { rawRequest } from "@/tests/helpers/raw-http";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

const MiB = 1024 * 1024;
const KIND: DbKind = TEST_DATABASE_URL ? "postgres" : "pglite";
const newAccount = () => privateKeyToAccount(generatePrivateKey());

/** A SQL client on the server's own PostgreSQL schema (tests that must age a row). */
async function sqlOn(databaseUrl: string) {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema")!;
  url.searchParams.delete("schema");
  url.searchParams.set("options", `-c search_path=${schema}`);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}

/** POST /api/auth/verify with a SIWE message for `domain`, sent with `headers` (raw HTTP). */
async function verifyWithHeaders(
  server: RunningServer,
  domain: string,
  headers: Record<string, string>,
) {
  const client = new ApiClient(server.url, newAccount());
  const body = Buffer.from(JSON.stringify(await client.siweMessage({ domain })));
  return rawRequest(server.url, {
    method: "POST",
    path: "/api/auth/verify",
    headers: {
      host: new URL(server.url).host,
      "content-type": "application/json",
      "content-length": body.length,
      ...headers,
    },
    body: { chunk: body, count: 1 },
  });
}

describe(`a hostile client against one server (${KIND})`, () => {
  let server: RunningServer;
  let cleanup: () => Promise<void>;
  let cast: Cast;
  let host: string;
  let port: string;

  beforeAll(async () => {
    const database = await prepareServerDatabase(KIND);
    cleanup = database.cleanup;
    server = await startServer({
      ...database.env,
      ...BUSY_TEST_SERVER_ENV,
      // A body that trickles in is cut off after this long (production default: 60 s).
      REQUEST_TIMEOUT_SECONDS: "3",
    });
    host = new URL(server.url).host;
    port = new URL(server.url).port;
    cast = await makeCast({ chain: { rpcUrl: inject("testChainRpcUrl") }, server });
  });

  afterAll(async () => {
    await server?.stop();
    await cleanup?.();
  });

  describe("sign-in: the SIWE domain comes from APP_URL only", () => {
    it.each([
      [
        "another site's domain, sent with Host: that site",
        "evil.example",
        { host: "evil.example" },
      ],
      [
        "another site's domain, sent with X-Forwarded-Host: that site",
        "evil.example",
        { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      ],
      [
        "another site's domain, sent with both",
        "evil.example",
        { host: "evil.example", "x-forwarded-host": "evil.example" },
      ],
      ["the dev server's localhost name (this is production)", "localhost:PORT", {}],
      ["our host with another port", "127.0.0.1:1", { host: "127.0.0.1:1" }],
    ])("refuses %s with 401 and no cookie", async (_label, domain, headers) => {
      const answer = await verifyWithHeaders(
        server,
        domain.replace("PORT", port),
        headers as Record<string, string>,
      );
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toEqual({
        error: expect.any(String),
        code: "siwe_refused",
      });
      expect(answer.headers["set-cookie"]).toBeUndefined();
    });

    it("signs in with our own domain whatever Host the request names", async () => {
      const answer = await verifyWithHeaders(server, host, { host: "evil.example" });
      expect(answer.status).toBe(200);
      expect(answer.headers["set-cookie"]).toMatch(/^marketplace_session=/);
    });
  });

  describe("logout is server-side: a replayed cookie gets 401", () => {
    it("after logout, on reads and writes", async () => {
      const client = await signedInClient(server.url);
      const cookie = client.cookie!;
      expect((await client.get("/api/auth/session")).status).toBe(200);
      const logout = await client.post("/api/auth/logout");
      expect(logout.status).toBe(200);
      expect(logout.headers.get("set-cookie")).toMatch(/marketplace_session=;/);

      const replay = new ApiClient(server.url);
      replay.cookie = cookie;
      expect((await replay.get("/api/auth/session")).status).toBe(401);
      expect((await replay.post("/api/v1/jobs", validJobBody())).status).toBe(401);
      expect((await replay.post("/api/auth/logout")).status).toBe(200);
    });

    it("after logout?all=true, every session of that wallet and no other", async () => {
      const account = newAccount();
      const laptop = await new ApiClient(server.url, account).signIn();
      const phone = await new ApiClient(server.url, account).signIn();
      const someoneElse = await signedInClient(server.url);
      expect(laptop.cookie).not.toBe(phone.cookie);

      const phoneCookie = phone.cookie!;
      const laptopCookie = laptop.cookie!;
      expect((await phone.post("/api/auth/logout?all=true")).status).toBe(200);
      for (const cookie of [phoneCookie, laptopCookie]) {
        const replay = new ApiClient(server.url);
        replay.cookie = cookie;
        expect((await replay.get("/api/auth/session")).status).toBe(401);
        expect(
          (await replay.post("/api/v1/agents", { name: "X", categories: ["data"] })).status,
        ).toBe(401);
      }
      expect((await someoneElse.get("/api/auth/session")).status).toBe(200);
      // Signing in again works: revocation is per session, not a ban.
      expect(
        (await new ApiClient(server.url, account).signIn().then((c) => c.get("/api/auth/session")))
          .status,
      ).toBe(200);
    });

    it("after signing in again with the same cookie (the old session is revoked)", async () => {
      const client = await signedInClient(server.url);
      const first = client.cookie!;
      await client.signIn();
      expect(client.cookie).not.toBe(first);
      const replay = new ApiClient(server.url);
      replay.cookie = first;
      expect((await replay.get("/api/auth/session")).status).toBe(401);
      expect((await client.get("/api/auth/session")).status).toBe(200);
    });

    it("refuses logout?all=true without a live session (401)", async () => {
      expect((await new ApiClient(server.url).post("/api/auth/logout?all=true")).status).toBe(401);
    });
  });

  describe("revoked and expired sessions get 401 on every write route", () => {
    /** Every route that needs a session, with a body that a live session would get past 401 with. */
    async function sessionRoutes() {
      const open = await openJobWithProposal(cast);
      const inProgress = await jobInProgress(cast);
      const delivered = await deliveredJob(cast);
      return {
        jobs: [open.job.id, inProgress.job.id, delivered.job.id],
        routes: [
          ["POST", "/api/v1/jobs", validJobBody()],
          ["POST", "/api/v1/agents", { name: "Forged", categories: ["data"] }],
          [
            "POST",
            `/api/v1/jobs/${open.job.id}/proposals`,
            { agentId: cast.agent.id, bidUsdc: 1, etaDays: 1, message: "forged" },
          ],
          ["POST", `/api/v1/jobs/${open.job.id}/proposals/${open.proposal.id}/reject`, undefined],
          [
            "POST",
            `/api/v1/jobs/${open.job.id}/accept`,
            { proposalId: open.proposal.id, txHash: randomTxHash() },
          ],
          ["POST", `/api/v1/jobs/${inProgress.job.id}/deliver`, {}],
          ["POST", `/api/v1/jobs/${delivered.job.id}/complete`, { rating: 1, comment: "forged" }],
          [
            "POST",
            "/api/v1/reviews",
            { agentId: cast.agent.id, jobId: inProgress.job.id, rating: 1, comment: "forged" },
          ],
          ["GET", "/api/auth/session", undefined],
        ] as [string, string, unknown][],
      };
    }

    async function expectAll401(cookie: string) {
      const { jobs, routes } = await sessionRoutes();
      const before = await Promise.all(jobs.map((id) => cast.poster.get(`/api/v1/jobs/${id}`)));
      const replay = new ApiClient(server.url);
      replay.cookie = cookie;
      for (const [method, path, json] of routes) {
        const response = await replay.request(method, path, { json });
        expect({ route: `${method} ${path}`, status: response.status }).toEqual({
          route: `${method} ${path}`,
          status: 401,
        });
      }
      const after = await Promise.all(jobs.map((id) => cast.poster.get(`/api/v1/jobs/${id}`)));
      expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
    }

    it("revoked (the poster's own second session, logged out)", async () => {
      const second = await new ApiClient(server.url, cast.poster.account).signIn();
      const cookie = second.cookie!;
      expect((await second.get("/api/auth/session")).status).toBe(200);
      expect((await second.post("/api/auth/logout")).status).toBe(200);
      await expectAll401(cookie);
      // The poster's first session is untouched.
      expect((await cast.poster.get("/api/auth/session")).status).toBe(200);
    });

    if (KIND === "postgres") {
      it("expired (the row's expiry passed, the sealed cookie still looks fine)", async () => {
        const sql = await sqlOn(server.env.DATABASE_URL!);
        try {
          const known = (await sql.query(`SELECT id FROM sessions`)).rows.map((row) => row.id);
          const second = await new ApiClient(server.url, cast.poster.account).signIn();
          expect((await second.get("/api/auth/session")).status).toBe(200);
          const expired = await sql.query(
            `UPDATE sessions SET "expiresAt" = now() - interval '1 second'
              WHERE wallet = $1 AND NOT (id = ANY($2)) RETURNING id`,
            [cast.poster.account!.address, known],
          );
          expect(expired.rowCount).toBe(1);
          await expectAll401(second.cookie!);
          expect((await cast.poster.get("/api/auth/session")).status).toBe(200);
        } finally {
          await sql.end();
        }
      });
    }
  });

  describe("body limits hold before the body is read", () => {
    const sixteen = (() => {
      let path = "";
      return {
        set: (value: string) => (path = value),
        get path() {
          return path;
        },
      };
    })();
    beforeAll(async () => {
      const { job } = await jobInProgress(cast);
      sixteen.set(`/api/v1/jobs/${job.id}/deliver`);
    });

    it.each([
      ["a 100 MB JSON body, no session", "/api/v1/jobs", false, 100_000_000],
      ["a 100 MB JSON body, signed in", "/api/v1/jobs", true, 100_000_000],
      ["a 100 MB delivery, signed in", "DELIVER", true, 100_000_000],
      ["a 16.1 MiB delivery, signed in", "DELIVER", true, Math.round(16.1 * MiB)],
      [
        "a 1 MiB + 1 byte JSON body to a route that reads none",
        "/api/auth/logout",
        false,
        JSON_BODY_LIMIT + 1,
      ],
    ])(
      "answers %s with 413 within a second, without waiting for the body",
      async (_label, path, signedIn, declared) => {
        const answer = await rawRequest(server.url, {
          method: "POST",
          path: path === "DELIVER" ? sixteen.path : path,
          headers: {
            host,
            "content-type": "application/json",
            "content-length": declared,
            ...(signedIn ? { cookie: cast.operator.cookie! } : {}),
          },
          // 16 bytes every 50 ms: the client would still be sending for minutes.
          body: { chunk: Buffer.from('{"title":"x",   '), count: 100, pauseMs: 50 },
          timeoutMs: 10_000,
        });
        expect(answer.status).toBe(413);
        expect(JSON.parse(answer.body)).toEqual({
          error: expect.any(String),
          code: "payload_too_large",
        });
        expect(answer.cutOff).toBe(true);
        expect(answer.answeredAfterMs).toBeLessThan(1000);
      },
    );

    it.each([
      ["a chunked JSON body past 1 MiB, signed in", "/api/v1/jobs", true, 413],
      ["a chunked delivery past 16 MiB, signed in", "DELIVER", true, 413],
      ["a chunked write without a session (never read)", "/api/v1/jobs", false, 401],
      ["a chunked delivery without a session (never read)", "DELIVER", false, 401],
    ])("cuts off %s before the client is done", async (_label, path, signedIn, status) => {
      const answer = await rawRequest(server.url, {
        method: "POST",
        path: path === "DELIVER" ? sixteen.path : path,
        headers: {
          host,
          "content-type": "application/json",
          ...(signedIn ? { cookie: cast.operator.cookie! } : {}),
        },
        chunked: true,
        // 64 MiB planned, 64 KiB at a time: far past every limit.
        body: { chunk: Buffer.alloc(64 * 1024, 0x20), count: 1024 },
        timeoutMs: 30_000,
      });
      expect(answer.status).toBe(status);
      expect(answer.cutOff).toBe(true);
      expect(answer.sent).toBeLessThan(64 * MiB);
    });

    it("refuses a stranger's 15 MiB delivery (403) before asking for a byte of it", async () => {
      const { job } = await jobInProgress(cast);
      const stranger = await signedInClient(server.url);
      // Expect: 100-continue and no body: the server must answer from the headers alone.
      const answer = await rawRequest(server.url, {
        method: "POST",
        path: `/api/v1/jobs/${job.id}/deliver`,
        headers: {
          host,
          "content-type": "application/json",
          "content-length": 15 * MiB,
          expect: "100-continue",
          cookie: stranger.cookie!,
        },
        timeoutMs: 10_000,
      });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).error).toMatch(/only the assigned agent or its operator/);
    });

    it("cuts off a body that trickles in (slow loris) with 408", async () => {
      const answer = await rawRequest(server.url, {
        method: "POST",
        path: "/api/v1/jobs",
        headers: {
          host,
          "content-type": "application/json",
          "content-length": 1000,
          cookie: cast.poster.cookie!,
        },
        // One byte every 200 ms would take 200 s.
        body: { chunk: Buffer.from(" "), count: 1000, pauseMs: 200 },
        timeoutMs: 30_000,
      });
      expect(answer.cutOff).toBe(true);
      expect(answer.status).toBe(408);
      expect(answer.sent).toBeLessThan(1000);
    });

    it("cuts off headers that trickle in", async () => {
      const answer = await rawRequest(server.url, {
        method: "GET",
        path: `/api/v1/jobs?limit=1&padding=${"x".repeat(200)}`,
        headers: { host },
        headerPauseMs: 50,
        timeoutMs: 30_000,
      });
      // The request line and headers would take ~15 s; the server ends it before.
      expect(answer.status === undefined || answer.status === 408).toBe(true);
      expect(answer.headers["content-type"] ?? "application/json").toMatch(/json/);
    });

    it("delivers 15.9 MiB (10 MiB of files) and serves every file back byte for byte", async () => {
      const { job } = await jobInProgress(cast);
      const files = Array.from({ length: 10 }, (_, index) => ({
        name: `part-${index}.bin`,
        bytes: randomBytes(MiB),
      }));
      const attachments = files.map((file) => ({
        name: file.name,
        size: file.bytes.length,
        type: "application/octet-stream",
        dataUrl: `data:application/octet-stream;base64,${file.bytes.toString("base64")}`,
      }));
      const base = JSON.stringify({ attachments, pad: "" });
      const target = Math.round(15.9 * MiB);
      const body = JSON.stringify({ attachments, pad: " ".repeat(target - base.length) });
      expect(Buffer.byteLength(body)).toBe(target);
      expect(target).toBeLessThan(DELIVER_BODY_LIMIT);

      const response = await cast.operator.request("POST", `/api/v1/jobs/${job.id}/deliver`, {
        body,
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(200);
      const stored = response.body.data.attachments as { id: string; name: string; size: number }[];
      expect(stored.map((a) => [a.name, a.size])).toEqual(files.map((f) => [f.name, MiB]));
      for (const [index, attachment] of stored.entries()) {
        const download = await fetch(
          `${server.url}/api/v1/jobs/${job.id}/attachments/${attachment.id}`,
          { headers: { cookie: cast.poster.cookie! } },
        );
        expect(download.status).toBe(200);
        const bytes = Buffer.from(await download.arrayBuffer());
        expect(bytes.equals(files[index]!.bytes)).toBe(true);
      }
    });

    it("refuses a 16.1 MiB delivery sent in full (413), and the job stays in progress", async () => {
      const { job } = await jobInProgress(cast);
      const body = Buffer.from(
        JSON.stringify({ attachments: [], pad: " ".repeat(Math.round(16.1 * MiB)) }),
      );
      const answer = await rawRequest(server.url, {
        method: "POST",
        path: `/api/v1/jobs/${job.id}/deliver`,
        headers: {
          host,
          "content-type": "application/json",
          "content-length": body.length,
          cookie: cast.operator.cookie!,
        },
        body: { chunk: body, count: 1 },
      });
      expect(answer.status).toBe(413);
      expect((await cast.poster.get(`/api/v1/jobs/${job.id}`)).body.data.status).toBe(
        "in_progress",
      );
    });

    it("still serves keep-alive clients normally after all that", async () => {
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => cast.poster.get("/api/auth/session")),
      );
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    });
  });
});

describe("rate limits are keyed on the socket's address, not on headers", () => {
  const servers: RunningServer[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(cleanups.map((cleanup) => cleanup()));
  });

  async function serverWith(env: Record<string, string>) {
    const database = await prepareServerDatabase("pglite");
    cleanups.push(database.cleanup);
    const server = await startServer({ ...database.env, RATE_LIMIT_AUTH_PER_MINUTE: "5", ...env });
    servers.push(server);
    return server;
  }

  const nonce = (server: RunningServer, headers: Record<string, string>) =>
    new ApiClient(server.url).get("/api/auth/nonce", headers);

  it("ignores X-Forwarded-For, X-Real-IP and our internal header from the client", async () => {
    const server = await serverWith({});
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 9; i++) {
      const response = await nonce(server, {
        "x-forwarded-for": `198.51.100.${i}`,
        "x-real-ip": `198.51.100.${i}`,
        [CLIENT_ADDRESS_HEADER]: `203.0.113.${i}`,
      });
      statuses.push(response.status);
      retryAfter ??= response.headers.get("retry-after");
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it("with TRUST_PROXY_HOPS=1 counts the rightmost X-Forwarded-For entry only", async () => {
    const server = await serverWith({ TRUST_PROXY_HOPS: "1" });
    // A client rotating what it prepends, behind our one proxy (which appends the real peer).
    const rotatingLeft: number[] = [];
    for (let i = 0; i < 7; i++) {
      rotatingLeft.push(
        (await nonce(server, { "x-forwarded-for": `10.0.0.${i}, 192.0.2.7` })).status,
      );
    }
    expect(rotatingLeft).toEqual([200, 200, 200, 200, 200, 429, 429]);
    // Distinct clients as the proxy saw them are distinct: the header does count here.
    const distinct: number[] = [];
    for (let i = 0; i < 7; i++) {
      distinct.push((await nonce(server, { "x-forwarded-for": `192.0.2.${100 + i}` })).status);
    }
    expect(distinct).toEqual([200, 200, 200, 200, 200, 200, 200]);
    // And a trusted proxy's X-Forwarded-Host still widens no sign-in domain.
    const answer = await verifyWithHeaders(server, "evil.example", {
      "x-forwarded-host": "evil.example",
      "x-forwarded-for": "192.0.2.200",
    });
    expect(answer.status).toBe(401);
  });
});

interface SharedSetup {
  name: string;
  store: "postgres" | "redis";
}

const SHARED: SharedSetup[] = [
  ...(TEST_DATABASE_URL ? [{ name: "PostgreSQL", store: "postgres" as const }] : []),
  ...(TEST_REDIS_URL ? [{ name: "Redis (REDIS_URL)", store: "redis" as const }] : []),
];

describe.each(SHARED)("two servers share one limit in $name", ({ store }) => {
  const servers: RunningServer[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const prefix = `test-${randomBytes(4).toString("hex")}:`;
  const LIMIT = 6;

  beforeAll(async () => {
    const redisEnv: Record<string, string> =
      store === "redis" ? { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix } : {};
    const shared = TEST_DATABASE_URL ? await prepareServerDatabase("postgres") : undefined;
    if (shared) cleanups.push(shared.cleanup);
    for (let i = 0; i < 2; i++) {
      // With Redis the limit must be shared even when the servers share nothing else.
      const database = shared ?? (await prepareServerDatabase("pglite"));
      if (!shared) cleanups.push(database.cleanup);
      servers.push(
        await startServer({
          ...database.env,
          ...redisEnv,
          RATE_LIMIT_AUTH_PER_MINUTE: String(LIMIT),
          RATE_LIMIT_WRITES_PER_MINUTE: String(LIMIT),
        }),
      );
    }
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(cleanups.map((cleanup) => cleanup()));
  });

  // Signing in (nonce + verify) uses two of the auth bucket's hits.
  let writer: ApiClient | undefined;
  const authHitsUsed = () => (writer ? 2 : 0);
  beforeAll(async () => {
    // Sessions are shared only when the servers share a database.
    if (TEST_DATABASE_URL) writer = await signedInClient(servers[0]!.url);
  });

  it(`answers 429 after ${LIMIT} sign-in requests spread over both`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      statuses.push((await new ApiClient(servers[i % 2]!.url).get("/api/auth/nonce")).status);
    }
    const allowed = LIMIT - authHitsUsed();
    expect(statuses.slice(0, allowed)).toEqual(Array(allowed).fill(200));
    expect(statuses.slice(allowed)).toEqual(Array(2 * LIMIT - allowed).fill(429));
    if (store === "redis") {
      const redis = new Redis(TEST_REDIS_URL!);
      try {
        const count = Number(await redis.get(`${prefix}rate:auth:ip:127.0.0.1`));
        expect(count).toBe(2 * LIMIT + authHitsUsed());
      } finally {
        redis.disconnect();
      }
    }
  });

  it.runIf(TEST_DATABASE_URL)(
    `answers 429 after ${LIMIT} writes by one wallet spread over both`,
    async () => {
      const twin = sameSessionOn(writer!, servers[1]!.url);
      const statuses: number[] = [];
      for (let i = 0; i < 2 * LIMIT; i++) {
        const client = i % 2 === 0 ? writer! : twin;
        statuses.push((await client.post("/api/v1/jobs", validJobBody())).status);
      }
      expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(201));
      expect(statuses.slice(LIMIT)).toEqual(Array(LIMIT).fill(429));
      expectStatus(await writer!.get("/api/auth/session"), 200);
    },
  );
});
