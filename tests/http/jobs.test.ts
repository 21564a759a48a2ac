// Jobs: create, validate, list with filters and cursor pages, read.
// Part of the HTTP contract against the production app server and a real database (PGlite,
// and PostgreSQL when TEST_DATABASE_URL is set), with real SIWE signatures from viem
// accounts; the cast is tests/helpers/contract.ts.
import { describe, expect, it } from "vitest";
import { useContractCast, validJob } from "@/tests/helpers/contract";
import { DB_KINDS } from "@/tests/helpers/db";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

describe.each(DB_KINDS)("marketplace API over HTTP on %s", (kind) => {
  const cast = useContractCast(kind);

  describe("jobs", () => {
    it("creates a job (201) with every contract field", async () => {
      const response = await cast.poster.post("/api/v1/jobs", {
        ...validJob,
        requirements: [" cite sources "],
        extra: "ignored",
      });
      expect(response.status).toBe(201);
      const job = response.body.data;
      expect(job).toEqual({
        id: expect.any(String),
        title: validJob.title,
        description: validJob.description,
        category: "research",
        budgetUsdc: 25.5,
        timelineDays: 3,
        requirements: ["cite sources"],
        handle: `@${cast.poster.account!.address.slice(2, 8)}`,
        status: "open",
        posterAddress: cast.poster.account!.address,
        posterVerified: false,
        assignedAgentId: null,
        acceptedProposalId: null,
        paymentTxHash: null,
        attachments: [],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        deliveredAt: null,
        completedAt: null,
      });
      expect((await cast.anon.get(`/api/v1/jobs/${job.id}`)).body).toEqual({ data: job });
    });

    it("keeps a custom handle and defaults requirements to []", async () => {
      const job = (await cast.poster.post("/api/v1/jobs", { ...validJob, handle: "  @acme  " }))
        .body.data;
      expect(job.handle).toBe("@acme");
      expect(job.requirements).toEqual([]);
    });

    it("needs a session (401)", async () => {
      expect((await cast.anon.post("/api/v1/jobs", validJob)).status).toBe(401);
    });

    it.each([
      ["missing title", { ...validJob, title: undefined }],
      ["empty title", { ...validJob, title: "   " }],
      ["title over 200 chars", { ...validJob, title: "x".repeat(201) }],
      ["missing description", { ...validJob, description: undefined }],
      ["description over 20,000 chars", { ...validJob, description: "x".repeat(20_001) }],
      ["unknown category", { ...validJob, category: "cooking" }],
      ["budget as a string", { ...validJob, budgetUsdc: "10" }],
      ["zero budget", { ...validJob, budgetUsdc: 0 }],
      ["negative budget", { ...validJob, budgetUsdc: -1 }],
      ["budget with 7 decimals", { ...validJob, budgetUsdc: 1.0000001 }],
      ["budget over 1e9", { ...validJob, budgetUsdc: 1_000_000_001 }],
      ["fractional timeline", { ...validJob, timelineDays: 1.5 }],
      ["zero timeline", { ...validJob, timelineDays: 0 }],
      ["timeline over 3650", { ...validJob, timelineDays: 3651 }],
      ["requirements not an array", { ...validJob, requirements: "one" }],
      ["51 requirements", { ...validJob, requirements: Array(51).fill("r") }],
      ["an empty requirement", { ...validJob, requirements: [""] }],
      ["a requirement over 500 chars", { ...validJob, requirements: ["x".repeat(501)] }],
      ["handle over 32 chars", { ...validJob, handle: "x".repeat(33) }],
      ["a JSON array body", [validJob]],
      ["a JSON string body", "job"],
    ])("answers 400 for %s", async (_label, body) => {
      const response = await cast.poster.post("/api/v1/jobs", body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: expect.any(String), code: "invalid_request" });
    });

    it("answers 400 for invalid JSON and 413 for bodies over 1 MiB", async () => {
      const bad = await cast.poster.request("POST", "/api/v1/jobs", {
        body: "{not json",
        headers: { "content-type": "application/json" },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/JSON/);
      const big = await cast.poster.post("/api/v1/jobs", {
        ...validJob,
        description: "x".repeat(1024 * 1024),
      });
      expect(big.status).toBe(413);
      expect(big.body).toEqual({ error: expect.any(String), code: "payload_too_large" });
    });

    it("lists newest first with filters and cursor pages", async () => {
      const client = await cast.newClient().signIn();
      const created = [];
      for (const category of ["legal", "legal", "legal", "seo"]) {
        created.push((await client.post("/api/v1/jobs", { ...validJob, category })).body.data);
      }
      const first = await cast.anon.get("/api/v1/jobs?category=legal&status=open&limit=2");
      expect(first.status).toBe(200);
      expect(first.body.data.map((job: { id: string }) => job.id)).toEqual([
        created[2]!.id,
        created[1]!.id,
      ]);
      expect(first.body.meta.nextCursor).toEqual(expect.any(String));
      const second = await cast.anon.get(
        `/api/v1/jobs?category=legal&limit=2&cursor=${first.body.meta.nextCursor}`,
      );
      expect(second.body.data.map((job: { id: string }) => job.id)).toEqual([created[0]!.id]);
      expect(second.body.meta.nextCursor).toBeNull();
      const all = await cast.anon.get("/api/v1/jobs");
      expect(all.body.data.length).toBeLessThanOrEqual(50);
      const times = all.body.data.map((job: { createdAt: string }) => job.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
      expect((await cast.anon.get("/api/v1/jobs?status=completed&category=seo")).body.data).toEqual(
        [],
      );
    });

    it.each([
      "status=closed",
      "category=cooking",
      "limit=0",
      "limit=101",
      "limit=abc",
      "cursor=%%%",
    ])("answers 400 for ?%s", async (query) => {
      const response = await cast.anon.get(`/api/v1/jobs?${query}`);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: expect.any(String),
        code: query.startsWith("cursor=") ? "invalid_cursor" : "invalid_request",
      });
    });

    it("answers 404 for an unknown job", async () => {
      const response = await cast.anon.get("/api/v1/jobs/job_doesnotexist");
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: expect.any(String), code: "job_not_found" });
      expect((await cast.anon.get(`/api/v1/jobs/${"x".repeat(300)}`)).status).toBe(404);
    });
  });
});
