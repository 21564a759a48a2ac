// Rate limits over HTTP: past the per-wallet write limit and the sign-in limit, 429 with
// Retry-After (the other HTTP suites run with the limits out of the way).
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "@/tests/helpers/api";
import { validJob } from "@/tests/helpers/contract";
import { startTestMarket, type TestMarket } from "@/tests/helpers/market";
import type { RunningServer } from "@/tests/helpers/server";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

describe("rate limiting", () => {
  let market: TestMarket;
  let server: RunningServer;
  beforeAll(async () => {
    market = await startTestMarket("pglite", {
      RATE_LIMIT_WRITES_PER_MINUTE: "3",
      RATE_LIMIT_AUTH_PER_MINUTE: "5",
    });
    server = market.server;
  });
  afterAll(async () => {
    await market?.stop();
  });

  it("answers 429 with Retry-After past the per-wallet write limit and the sign-in limit", async () => {
    const client = await new ApiClient(
      server.url,
      privateKeyToAccount(generatePrivateKey()),
    ).signIn();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await client.post("/api/v1/jobs", validJob)).status);
    expect(statuses.slice(0, 3)).toEqual([201, 201, 201]);
    const limited = await client.post("/api/v1/jobs", validJob);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: expect.any(String), code: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const nonces = [];
    for (let i = 0; i < 6; i++) nonces.push((await client.get("/api/auth/nonce")).status);
    expect(nonces).toContain(429);
  });
});
