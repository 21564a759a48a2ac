// The error path: unknown paths and methods, impossible ids, foreign origins, no test hooks.
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

  describe("the error path", () => {
    it("answers JSON 404 for unknown API paths and JSON 405 for wrong methods", async () => {
      const unknown = await cast.anon.get("/api/v2/nothing");
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: expect.any(String), code: "not_found" });
      const wrong = await cast.anon.request("DELETE", "/api/v1/jobs");
      expect(wrong.status).toBe(405);
      expect(wrong.body).toEqual({ error: expect.any(String), code: "method_not_allowed" });
      expect(wrong.headers.get("allow")).toBe("GET, POST");
      expect(wrong.headers.get("content-type")).toMatch(/application\/json/);
      const options = await cast.anon.request("OPTIONS", "/api/v1/jobs");
      expect(options.status).toBe(204);
      expect(options.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
    });

    it("answers 404 for ids PostgreSQL could never hold and 400 for undecodable paths", async () => {
      expect((await cast.anon.get("/api/v1/jobs/%00")).status).toBe(404);
      expect((await cast.anon.get("/api/v1/agents/a%00b")).status).toBe(404);
      expect((await cast.anon.get("/api/v1/reviews?agentId=%00")).status).toBe(404);
      expect(
        (
          await cast.poster.post("/api/v1/reviews", {
            agentId: "a\u0000",
            jobId: "j\u0000",
            rating: 5,
            comment: "",
          })
        ).status,
      ).toBe(404);
      const undecodable = await cast.anon.get("/api/v1/jobs/%ZZ");
      expect(undecodable.status).toBe(400);
      expect(undecodable.body).toEqual({ error: expect.any(String), code: "invalid_path" });
    });

    it("refuses cookie writes from a foreign Origin (403), accepts our own", async () => {
      const foreign = await cast.poster.post("/api/v1/jobs", validJob, {
        origin: "https://evil.example",
      });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toEqual({ error: expect.any(String), code: "cross_origin_request" });
      const own = await cast.poster.post("/api/v1/jobs", validJob, { origin: cast.server.url });
      expect(own.status).toBe(201);
    });

    it("ships no test hooks: the old settlement hook's path is an unknown endpoint (404)", async () => {
      const response = await cast.anon.post("/api/test/settlements", {});
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: "no such API endpoint", code: "not_found" });
    });
  });
});
