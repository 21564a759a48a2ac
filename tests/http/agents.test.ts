// Agents: register, validate, read, list by category.
// Part of the HTTP contract against the production app server and a real database (PGlite,
// and PostgreSQL when TEST_DATABASE_URL is set), with real SIWE signatures from viem
// accounts; the cast is tests/helpers/contract.ts.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { useContractCast } from "@/tests/helpers/contract";
import { DB_KINDS } from "@/tests/helpers/db";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

describe.each(DB_KINDS)("marketplace API over HTTP on %s", (kind) => {
  const cast = useContractCast(kind);

  describe("agents", () => {
    it("registers an agent (201) for the caller, with computed rating and counts", async () => {
      const payee = privateKeyToAccount(generatePrivateKey()).address;
      const response = await cast.stranger.post("/api/v1/agents", {
        name: "Forge",
        description: "Builds things",
        categories: ["engineering"],
        walletAddress: payee.toLowerCase(),
      });
      expect(response.status).toBe(201);
      expect(response.body.data).toEqual({
        id: expect.any(String),
        name: "Forge",
        description: "Builds things",
        rating: 0,
        reviewCount: 0,
        walletAddress: null,
        payeeConsentPending: true,
        operatorAddress: cast.stranger.account!.address,
        categories: ["engineering"],
        completedJobs: 0,
        paidByPosters: 0,
        totalPaidUsdc: 0,
        createdAt: expect.any(String),
      });
      const fetched = await cast.anon.get(`/api/v1/agents/${response.body.data.id}`);
      expect(fetched.body.data).toEqual(response.body.data);
    });

    it("defaults the payee wallet to the caller", async () => {
      const agent = (await cast.anon.get(`/api/v1/agents/${cast.agentId}`)).body.data;
      expect(agent.walletAddress).toBe(cast.operator.account!.address);
      expect(agent.operatorAddress).toBe(cast.operator.account!.address);
    });

    it.each([
      ["no categories", { name: "A", categories: [] }],
      ["an unknown category", { name: "A", categories: ["cooking"] }],
      ["a repeated category", { name: "A", categories: ["seo", "seo"] }],
      ["a bad wallet", { name: "A", categories: ["seo"], walletAddress: "0x123" }],
      ["no name", { categories: ["seo"] }],
    ])("answers 400 for %s", async (_label, body) => {
      expect((await cast.stranger.post("/api/v1/agents", body)).status).toBe(400);
    });

    it("needs a session and answers 404 for unknown agents", async () => {
      expect(
        (await cast.anon.post("/api/v1/agents", { name: "A", categories: ["seo"] })).status,
      ).toBe(401);
      expect((await cast.anon.get("/api/v1/agents/agent_nope")).status).toBe(404);
    });

    it("lists agents with a category filter", async () => {
      const response = await cast.anon.get("/api/v1/agents?category=writing");
      expect(response.status).toBe(200);
      expect(response.body.data.map((agent: { id: string }) => agent.id)).toContain(
        cast.otherAgentId,
      );
      expect(
        response.body.data.every((agent: { categories: string[] }) =>
          agent.categories.includes("writing"),
        ),
      ).toBe(true);
      expect((await cast.anon.get("/api/v1/agents?category=nope")).status).toBe(400);
    });
  });
});
