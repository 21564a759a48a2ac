// Inputs the schemas let through never answer 500, names cannot pass for others, and the
// browser's defences hold (issue: abuse). Against the production build; every server's log
// must stay free of unexpected errors (failOnServerErrors), since each old 500 also wrote one.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeSortedCursor } from "@/lib/kernel/pagination";
import { ApiClient } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import {
  BUSY_TEST_SERVER_ENV,
  createJob,
  expectStatus,
  jobInProgress,
  makeCast,
  registerAgent,
  submitProposal,
  validJobBody,
} from "@/tests/helpers/fixtures";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";

failOnServerErrors();

const OUT_OF_RANGE = "9999999999999999999";

describe.each(DB_KINDS)("defences on %s", (kind) => {
  let server: RunningServer;
  let cleanup: () => Promise<void>;
  let poster: ApiClient;
  let operator: ApiClient;
  let anon: ApiClient;

  beforeAll(async () => {
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    server = await startServer({ ...database.env, ...BUSY_TEST_SERVER_ENV });
    const signIn = () =>
      new ApiClient(server.url, privateKeyToAccount(generatePrivateKey())).signIn();
    [poster, operator] = await Promise.all([signIn(), signIn()]);
    anon = new ApiClient(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    await cleanup?.();
  });

  describe("inputs that used to answer 500 answer 400 with a code", () => {
    it("a sort cursor whose budget no bigint holds", async () => {
      const cursor = encodeSortedCursor({
        createdAt: new Date(),
        id: "job_x",
        sort: "budget_desc",
        value: "1".repeat(40),
      });
      const answer = await anon.get(`/api/v1/jobs?sort=budget_desc&cursor=${cursor}`);
      expect([answer.status, answer.body.code]).toEqual([400, "invalid_cursor"]);
    });

    it("message, notification and event positions past 2^63", async () => {
      const job = await createJob(poster);
      const agent = await registerAgent(operator);
      const bid = await submitProposal(operator, job.id, agent.id);
      const thread = `/api/v1/jobs/${job.id}/proposals/${bid.id}/messages` as const;
      for (const answer of [
        await poster.get(`${thread}?after=${OUT_OF_RANGE}`),
        await poster.post(`${thread}/read`, { upTo: OUT_OF_RANGE }),
        await poster.get(`/api/v1/notifications?cursor=${OUT_OF_RANGE}`),
        await poster.post("/api/v1/notifications/read", { upTo: OUT_OF_RANGE }),
        await poster.post("/api/v1/notifications/read", { ids: [OUT_OF_RANGE] }),
        await anon.get(`/api/v1/events?after=${OUT_OF_RANGE}`),
      ]) {
        expect([answer.status, answer.body.code]).toEqual([400, "invalid_request"]);
      }
    });

    it("an event filter naming an id no row can have (a NUL byte)", async () => {
      const answer = await anon.get("/api/v1/events?jobId=%00abc");
      expect([answer.status, answer.body.error]).toEqual([400, "jobId is not a valid identifier"]);
    });

    it("a search of only dashes (33 and more nested NOTs); dashes before words still search", async () => {
      const answer = await anon.get(`/api/v1/jobs?q=${"-".repeat(40)}`);
      expect([answer.status, answer.body.error]).toEqual([
        400,
        "q must contain a word to search for (letters or digits)",
      ]);
      const words = await anon.get(`/api/v1/jobs?q=papers%20${"-".repeat(60)}contract`);
      expect(words.status).toBe(200);
    });

    it("amounts under one atomic unit (5e-324 passed as 'no decimals')", async () => {
      for (const budgetUsdc of [5e-324, 1e-21, 2e-20]) {
        const answer = await poster.post("/api/v1/jobs", validJobBody({ budgetUsdc }));
        expect([answer.status, answer.body.error], String(budgetUsdc)).toEqual([
          400,
          "budgetUsdc must have at most 6 decimal places",
        ]);
      }
      const job = await createJob(poster);
      const agent = await registerAgent(operator);
      const bid = await operator.post(`/api/v1/jobs/${job.id}/proposals`, {
        agentId: agent.id,
        bidUsdc: 5e-324,
        etaDays: 1,
        message: "dust",
      });
      expect([bid.status, bid.body.error]).toEqual([
        400,
        "bidUsdc must have at most 6 decimal places",
      ]);
    });
  });

  describe("names people can trust", () => {
    it("strips zero-width and direction-changing characters from every display string", async () => {
      const job = await createJob(poster, {
        title: "Pay\u200B me \u202Etxt.exe",
        description: "Hidden\u2066 text\u2069 and an emoji 👩‍💻",
        requirements: ["one\uFEFF"],
        handle: "@bob\u200D",
      });
      expect(job).toMatchObject({
        title: "Pay me txt.exe",
        description: "Hidden text and an emoji 👩‍💻",
        requirements: ["one"],
        handle: "@bob",
      });
      const agent = expectStatus(
        await operator.post("/api/v1/agents", {
          name: "Ag\u200Bent\u202E",
          categories: ["research"],
          description: "\u2067x",
        }),
        201,
      ).data;
      expect([agent.name, agent.description]).toEqual(["Agent", "x"]);
      const bid = await submitProposal(operator, job.id, agent.id, { message: "hi\u200B!" });
      expect(bid.message).toBe("hi!");
      const sent = expectStatus(
        await poster.post(`/api/v1/jobs/${job.id}/proposals/${bid.id}/messages`, {
          body: "\u202Ehello",
        }),
        200,
      ).data;
      expect(sent.body).toBe("hello");
      // A name made only of invisible characters is empty.
      const empty = await poster.post("/api/v1/jobs", validJobBody({ title: "\u200B\u200E" }));
      expect([empty.status, empty.body.error]).toEqual([400, "title must not be empty"]);
    });

    it("strips them from attachment names", async () => {
      const cast = await makeCast({ chain: { rpcUrl: inject("testChainRpcUrl") }, server });
      const { job } = await jobInProgress(cast);
      const delivered = expectStatus(
        await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`, {
          attachments: [
            {
              name: "report\u202Efdp.exe",
              size: 2,
              type: "text/plain",
              dataUrl: `data:text/plain;base64,${Buffer.from("ok").toString("base64")}`,
            },
          ],
        }),
        200,
      ).data;
      expect(delivered.attachments.map((file: { name: string }) => file.name)).toEqual([
        "reportfdp.exe",
      ]);
    });

    it("reserves the address-prefix handle for its own wallet", async () => {
      const other = privateKeyToAccount(generatePrivateKey()).address;
      for (const handle of [
        `@${other.slice(2, 8)}`,
        `@${other.slice(2, 8).toUpperCase()}`,
        other.slice(2, 10),
        `@${other.slice(0, 12)}`,
        `@${other.slice(2, 8)}\u200B`,
      ]) {
        const answer = await poster.post("/api/v1/jobs", validJobBody({ handle }));
        expect([answer.status, answer.body.code], handle).toEqual([400, "handle_reserved"]);
      }
      const own = poster.account!.address;
      for (const handle of [`@${own.slice(2, 8)}`, `@${own.slice(2, 12).toLowerCase()}`, "@bob"]) {
        expect((await poster.post("/api/v1/jobs", validJobBody({ handle }))).status, handle).toBe(
          201,
        );
      }
    });
  });

  describe("cookie writes a browser cannot be made to send from another site", () => {
    const body = JSON.stringify(validJobBody());

    async function write(client: ApiClient, headers: Record<string, string>, payload = body) {
      return client.request("POST", "/api/v1/jobs", { body: payload, headers });
    }

    it.each([
      ["cross-site", 403, "cross_site_request"],
      ["same-site", 403, "cross_site_request"],
      ["same-origin", 201, undefined],
      ["none", 201, undefined],
    ])("Sec-Fetch-Site: %s → %s", async (site, status, code) => {
      const answer = await write(poster, {
        "content-type": "application/json",
        "sec-fetch-site": site,
      });
      expect([answer.status, answer.body.code]).toEqual([status, code]);
    });

    it("a body that is not application/json is refused (415), with or without Origin", async () => {
      for (const contentType of [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
      ]) {
        const answer = await write(poster, { "content-type": contentType });
        expect([answer.status, answer.body.code], contentType).toEqual([
          415,
          "unsupported_media_type",
        ]);
      }
      // No Content-Type at all is no JSON either.
      expect((await write(poster, {})).status).toBe(415);
      expect(
        (await write(poster, { "content-type": "application/json; charset=utf-8" })).status,
      ).toBe(201);
      // The sign-in too: a cross-site form must not sign a victim in as the attacker.
      const signIn = new ApiClient(server.url, privateKeyToAccount(generatePrivateKey()));
      const verify = await signIn.request("POST", "/api/auth/verify", {
        body: JSON.stringify(await signIn.siweMessage()),
        headers: { "content-type": "text/plain" },
      });
      expect([verify.status, verify.headers.get("set-cookie")]).toEqual([415, null]);
    });

    it("writes without a body need no Content-Type; bearer-token writes are not cookie writes", async () => {
      const job = await createJob(poster);
      const agent = await registerAgent(operator);
      const bid = await submitProposal(operator, job.id, agent.id);
      const rejected = await poster.request(
        "POST",
        `/api/v1/jobs/${job.id}/proposals/${bid.id}/reject`,
        { headers: { "sec-fetch-site": "same-origin" } },
      );
      expect(rejected.status).toBe(200);
      const token = expectStatus(
        await poster.post("/api/v1/tokens", { name: "bot", scopes: ["post"] }),
        200,
      ).data.token;
      const program = new ApiClient(server.url);
      const withToken = await program.request("POST", "/api/v1/jobs", {
        body,
        headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" },
      });
      expect(withToken.status).toBe(201);
    });
  });

  describe("access tokens per wallet", () => {
    it("holds at most 20 live ones, even when asked all at once; a revoked one frees a place", async () => {
      const owner = await new ApiClient(
        server.url,
        privateKeyToAccount(generatePrivateKey()),
      ).signIn();
      const answers = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          owner.post("/api/v1/tokens", { name: `t${i}`, scopes: ["read"] }),
        ),
      );
      const created = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status === 409);
      expect([created.length, refused.length]).toEqual([20, 5]);
      expect(refused[0]!.body.code).toBe("token_limit_reached");
      expectStatus(
        await owner.request("DELETE", `/api/v1/tokens/${created[0]!.body.data.id}`),
        200,
      );
      expect((await owner.post("/api/v1/tokens", { name: "again", scopes: ["read"] })).status).toBe(
        200,
      );
      expect(
        (await owner.post("/api/v1/tokens", { name: "one more", scopes: ["read"] })).status,
      ).toBe(409);
    });
  });

  describe("pages carry a strict Content-Security-Policy", () => {
    it("with a fresh nonce on every page and on every script of it; not on the API", async () => {
      const nonces: string[] = [];
      for (const path of ["/", "/jobs/new", "/agents"]) {
        const response = await fetch(`${server.url}${path}`, {
          // A client's own CSP header must not choose the nonce.
          headers: { "content-security-policy": "script-src 'nonce-chosenbyclient'" },
        });
        expect(response.status).toBe(200);
        const policy = response.headers.get("content-security-policy")!;
        const nonce = /'nonce-([^']+)'/.exec(policy)![1]!;
        expect(nonce).not.toBe("chosenbyclient");
        expect(policy).toContain("'strict-dynamic'");
        expect(policy).not.toContain("unsafe-eval");
        expect(policy).toContain("object-src 'none'");
        const html = await response.text();
        const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
        expect(scripts.length).toBeGreaterThan(0);
        for (const script of scripts) expect(script).toContain(`nonce="${nonce}"`);
        nonces.push(nonce);
      }
      expect(new Set(nonces).size).toBe(nonces.length);
      const api = await fetch(`${server.url}/api/v1/jobs?limit=1`);
      expect(api.headers.get("content-security-policy")).toBeNull();
      // Served over http here: no HSTS (it would be ignored, and mislead).
      expect(api.headers.get("strict-transport-security")).toBeNull();
    });
  });
});

describe("HSTS in production over https", () => {
  it("is sent on every answer when APP_URL is https", async () => {
    const database = await prepareServerDatabase("pglite");
    const server = await startServer({ ...database.env, APP_URL: "https://market.example" });
    try {
      for (const path of ["/", "/api/v1/jobs?limit=1"]) {
        const response = await fetch(`${server.url}${path}`);
        expect(response.headers.get("strict-transport-security")).toBe(
          "max-age=63072000; includeSubDomains",
        );
      }
      const page = await fetch(`${server.url}/`);
      expect(page.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
    } finally {
      await server.stop();
      await database.cleanup();
    }
  });
});
